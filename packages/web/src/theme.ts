import { type ThemeConfig } from 'antd';

/** Calm, dense and readable all day: deep blue accents, a navy top bar, slightly compact controls. */
const BRAND = {
  primary: '#1d4ed8',
  header: '#0f1e3d',
  headerHover: '#1a2d55',
  page: '#f2f4f8',
} as const;

export const theme: ThemeConfig = {
  // antd's components take their styles from its prebuilt stylesheet (main.tsx imports it) instead
  // of generating them in the browser as each first renders; the tokens below still apply, as the
  // CSS variables that stylesheet reads.
  zeroRuntime: true,
  token: {
    colorPrimary: BRAND.primary,
    colorInfo: BRAND.primary,
    colorLink: BRAND.primary,
    borderRadius: 4,
    fontSize: 13,
    controlHeight: 30,
    colorBgLayout: BRAND.page,
    fontFamily:
      "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', sans-serif",
  },
  components: {
    Layout: { headerBg: BRAND.header, headerHeight: 52, headerPadding: '0 20px', bodyBg: BRAND.page },
    Menu: {
      darkItemBg: BRAND.header,
      darkPopupBg: BRAND.header,
      darkSubMenuItemBg: BRAND.header,
      darkItemSelectedBg: BRAND.primary,
      darkItemHoverBg: BRAND.headerHover,
      horizontalLineHeight: '52px',
      itemPaddingInline: 14,
    },
    Card: { paddingLG: 20 },
    Modal: { titleFontSize: 16 },
  },
};

/** The theme for a person who asked their system for reduced motion: antd animates nothing. */
export const themeFor = (reducedMotion: boolean): ThemeConfig =>
  reducedMotion ? { ...theme, token: { ...theme.token, motion: false } } : theme;

import { type RefObject, useCallback, useEffect, useRef, useState } from 'react';

/** A form with at least this many sections gets jump links. */
const JUMP_LINKS_FROM = 4;

const TITLE_SELECTOR = '.form-section-title';

/** Less than this much of a section left in view under the jump links counts as read past. */
const SLIVER_PX = 96;

/** What a reader scrolls the form with by hand (a jump's own scroll is none of these). */
const HAND_EVENTS = ['wheel', 'touchstart', 'pointerdown', 'keydown'] as const;

/** The element that scrolls the form: the drawer's or modal's body, else the page. */
function scrollerOf(el: HTMLElement): HTMLElement | null {
  return el.closest<HTMLElement>('.ant-drawer-body, .ant-modal-wrap');
}

/** How far under the scroller's top a heading sits once jumped to: just under the jump links. */
function headingOffset(el: HTMLElement): number {
  const bar = el.closest('.form-with-jumps')?.querySelector<HTMLElement>('.form-jump-links');
  return (bar?.offsetHeight ?? 0) + 8;
}

/** Scroll the form's scroller so that the heading sits just under the jump links. */
function scrollToSection(heading: HTMLElement): void {
  const scroller = scrollerOf(heading);
  const offset = headingOffset(heading);
  if (!scroller) {
    heading.scrollIntoView({ block: 'start' });
    return;
  }
  const top = heading.getBoundingClientRect().top - scroller.getBoundingClientRect().top + scroller.scrollTop - offset;
  scroller.scrollTo({ top: Math.max(0, top), behavior: 'smooth' });
}

/**
 * The section headings of a long form (SectionTitle, formParts.tsx) as a row of links that stays at
 * the top while the form scrolls; the one being read is marked. Sections a form shows or hides as it
 * is filled in (a field's choice) come and go with it.
 */
export function JumpLinks({ formRef }: { formRef: RefObject<HTMLElement | null> }) {
  const [titles, setTitles] = useState<string[]>([]);
  const [current, setCurrent] = useState(0);
  /** The section of the last jump, until the reader scrolls by hand. */
  const jumped = useRef<number | null>(null);

  const headings = useCallback(
    () => [...(formRef.current?.querySelectorAll<HTMLElement>(TITLE_SELECTOR) ?? [])],
    [formRef],
  );

  useEffect(() => {
    const root = formRef.current;
    if (!root) return;
    const read = () => {
      const next = headings().map((h) => h.textContent ?? '');
      setTitles((prev) => (prev.length === next.length && prev.every((t, i) => t === next[i]) ? prev : next));
    };
    read();
    const observer = new MutationObserver(read);
    observer.observe(root, { childList: true, subtree: true, characterData: true });
    const scroller = scrollerOf(root);
    const onScroll = () => {
      if (!scroller) return;
      // The section being read is the last whose heading has reached the jump links (where a jump
      // puts it; the bar is taller when its links wrap) ...
      const top = scroller.getBoundingClientRect().top + headingOffset(root) + 24;
      const list = headings();
      let index = 0;
      list.forEach((h, i) => {
        if (h.getBoundingClientRect().top <= top) index = i;
      });
      // ... unless only a sliver of it is left above the next heading (the tag box under "Tag" in
      // view, the end of the section above just above it): then the next one is.
      const next = list[index + 1];
      if (next && next.getBoundingClientRect().top - top < SLIVER_PX) index += 1;
      // At the very bottom the last section is the one being read, however short it is, unless a
      // jump went to one above it whose heading is in view (the sections under it too short for the
      // drawer to scroll further).
      if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 2) {
        const view = scroller.getBoundingClientRect();
        const to = jumped.current;
        const target = to === null ? undefined : list[to]?.getBoundingClientRect();
        index = to !== null && target && target.top >= view.top && target.bottom <= view.bottom ? to : list.length - 1;
      }
      setCurrent(Math.max(0, index));
    };
    const byHand = () => {
      jumped.current = null;
    };
    scroller?.addEventListener('scroll', onScroll, { passive: true });
    for (const type of HAND_EVENTS) scroller?.addEventListener(type, byHand, { passive: true });
    return () => {
      observer.disconnect();
      scroller?.removeEventListener('scroll', onScroll);
      for (const type of HAND_EVENTS) scroller?.removeEventListener(type, byHand);
    };
  }, [formRef, headings]);

  if (titles.length < JUMP_LINKS_FROM) return null;
  return (
    <nav className="form-jump-links" aria-label="Sections of this form" data-testid="form-jump-links">
      <span className="form-jump-links-label">Jump to</span>
      {titles.map((title, i) => (
        <button
          key={`${i}-${title}`}
          type="button"
          className="form-jump-link"
          aria-current={i === current ? 'true' : undefined}
          data-testid={`jump-${title}`}
          onClick={() => {
            const heading = headings()[i];
            if (!heading) return;
            jumped.current = i;
            setCurrent(i);
            scrollToSection(heading);
          }}
        >
          {title}
        </button>
      ))}
    </nav>
  );
}

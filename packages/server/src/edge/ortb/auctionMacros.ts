import { AUCTION_MACROS } from '@adplane/shared';

/**
 * The auction macros of OpenRTB 2.6 section 4.4 (`${AUCTION_PRICE}` and the others), substituted in
 * nurl, burl, lurl and the markup. A macro without a value becomes '' (the spec's rule for an
 * optional value not known); values are URL-encoded, since they land in URLs (ids of a careless
 * bidder may hold anything; prices and plain ids are unchanged by it). The encoded forms
 * (`${AUCTION_PRICE:B64}`) need an algorithm agreed with the bidder: we agree none, and leave them be.
 */
type AuctionMacro = (typeof AUCTION_MACROS)[number];
export type MacroValues = Partial<Record<AuctionMacro, string>>;

const KNOWN: ReadonlySet<string> = new Set(AUCTION_MACROS);
const PATTERN = /\$\{(AUCTION_[A-Z_]+)\}/g;
const NOTHING_KEPT: ReadonlySet<string> = new Set();

/** `text` with every known macro replaced by its value ('' when it has none), except those in `keep`. */
export function fillAuctionMacros(text: string, values: MacroValues, keep: ReadonlySet<string> = NOTHING_KEPT): string {
  if (!text.includes('${AUCTION_')) return text;
  return text.replace(PATTERN, (whole, name: string) => {
    if (!KNOWN.has(name) || keep.has(name)) return whole;
    const value = values[name as AuctionMacro];
    return value ? encodeURIComponent(value) : '';
  });
}

/** Micro-dollars CPM as the USD CPM a bid states: 4500000 -> '4.5'. */
export function usdCpmText(micros: number): string {
  return String(Math.round(micros) / 1_000_000);
}

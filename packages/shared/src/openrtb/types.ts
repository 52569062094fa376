/**
 * OpenRTB 2.6 objects as adplane reads and writes them (section 3 of the specification; the
 * enumerations are AdCOM 1.0 lists). Every field is optional on the wire unless the spec requires it;
 * a reader never trusts these types for input it did not validate (see the edge's OpenRTB readers).
 * `ext` objects stay open: partners put anything there.
 */
type Ext = Record<string, unknown>;

interface Format {
  w?: number;
  h?: number;
  wratio?: number;
  hratio?: number;
  wmin?: number;
  ext?: Ext;
}

export interface Banner {
  format?: Format[];
  w?: number;
  h?: number;
  btype?: number[];
  battr?: number[];
  pos?: number;
  mimes?: string[];
  topframe?: 0 | 1;
  expdir?: number[];
  api?: number[];
  id?: string;
  vcm?: 0 | 1;
  ext?: Ext;
}

export interface Video {
  mimes?: string[];
  minduration?: number;
  maxduration?: number;
  startdelay?: number;
  maxseq?: number;
  poddur?: number;
  protocols?: number[];
  /** Deprecated in 2.6 but still sent by many. */
  protocol?: number;
  w?: number;
  h?: number;
  podid?: string;
  podseq?: number;
  rqddurs?: number[];
  /** Deprecated in 2.6 in favour of plcmt. */
  placement?: number;
  plcmt?: number;
  linearity?: number;
  skip?: 0 | 1;
  skipmin?: number;
  skipafter?: number;
  sequence?: number;
  slotinpod?: number;
  mincpmpersec?: number;
  battr?: number[];
  maxextended?: number;
  minbitrate?: number;
  maxbitrate?: number;
  boxingallowed?: 0 | 1;
  playbackmethod?: number[];
  playbackend?: number;
  delivery?: number[];
  pos?: number;
  companionad?: Banner[];
  api?: number[];
  companiontype?: number[];
  poddedupe?: number[];
  ext?: Ext;
}

export interface Deal {
  id: string;
  bidfloor?: number;
  bidfloorcur?: string;
  at?: number;
  wseat?: string[];
  wadomain?: string[];
  guar?: 0 | 1;
  mincpmpersec?: number;
  ext?: Ext;
}

interface Pmp {
  private_auction?: 0 | 1;
  deals?: Deal[];
  ext?: Ext;
}

export interface Imp {
  id: string;
  banner?: Banner;
  video?: Video;
  audio?: Ext;
  native?: Ext;
  pmp?: Pmp;
  displaymanager?: string;
  displaymanagerver?: string;
  instl?: 0 | 1;
  tagid?: string;
  bidfloor?: number;
  bidfloorcur?: string;
  clickbrowser?: 0 | 1;
  secure?: 0 | 1;
  iframebuster?: string[];
  rwdd?: 0 | 1;
  ssai?: number;
  exp?: number;
  qty?: Ext;
  dt?: number;
  refresh?: Ext;
  ext?: Ext;
}

interface Publisher {
  id?: string;
  name?: string;
  cattax?: number;
  cat?: string[];
  domain?: string;
  ext?: Ext;
}

interface Content {
  id?: string;
  episode?: number;
  title?: string;
  series?: string;
  season?: string;
  genre?: string;
  genres?: number[];
  url?: string;
  cattax?: number;
  cat?: string[];
  prodq?: number;
  context?: number;
  contentrating?: string;
  userrating?: string;
  qagmediarating?: number;
  keywords?: string;
  livestream?: 0 | 1;
  sourcerelationship?: 0 | 1;
  len?: number;
  language?: string;
  embeddable?: 0 | 1;
  network?: Ext;
  channel?: Ext;
  ext?: Ext;
}

interface DistributionChannel {
  id?: string;
  name?: string;
  domain?: string;
  cattax?: number;
  cat?: string[];
  sectioncat?: string[];
  pagecat?: string[];
  privacypolicy?: 0 | 1;
  publisher?: Publisher;
  content?: Content;
  keywords?: string;
  kwarray?: string[];
  inventorypartnerdomain?: string;
  ext?: Ext;
}

export interface Site extends DistributionChannel {
  page?: string;
  ref?: string;
  search?: string;
  mobile?: 0 | 1;
}

export interface App extends DistributionChannel {
  bundle?: string;
  storeurl?: string;
  ver?: string;
  paid?: 0 | 1;
}

interface Geo {
  lat?: number;
  lon?: number;
  type?: number;
  accuracy?: number;
  ipservice?: number;
  /** ISO 3166-1 alpha-3. */
  country?: string;
  region?: string;
  metro?: string;
  city?: string;
  zip?: string;
  utcoffset?: number;
  ext?: Ext;
}

export interface Device {
  geo?: Geo;
  dnt?: 0 | 1;
  lmt?: 0 | 1;
  ua?: string;
  sua?: Ext;
  ip?: string;
  ipv6?: string;
  devicetype?: number;
  make?: string;
  model?: string;
  os?: string;
  osv?: string;
  hwv?: string;
  h?: number;
  w?: number;
  ppi?: number;
  pxratio?: number;
  js?: 0 | 1;
  language?: string;
  carrier?: string;
  connectiontype?: number;
  ifa?: string;
  ext?: Ext;
}

export interface User {
  id?: string;
  buyeruid?: string;
  yob?: number;
  gender?: string;
  keywords?: string;
  geo?: Geo;
  data?: Ext[];
  consent?: string;
  eids?: Ext[];
  ext?: Ext;
}

export interface Regs {
  coppa?: 0 | 1;
  gdpr?: 0 | 1;
  us_privacy?: string;
  gpp?: string;
  gpp_sid?: number[];
  ext?: Ext;
}

/** The SupplyChain object (openrtb/supplychainobject.md): every party that resold the request, in order. */
export interface SupplyChainNode {
  asi: string;
  sid: string;
  rid?: string;
  name?: string;
  domain?: string;
  hp: 0 | 1;
  ext?: Ext;
}

export interface SupplyChain {
  complete: 0 | 1;
  nodes: SupplyChainNode[];
  ver: string;
  ext?: Ext;
}

interface Source {
  fd?: 0 | 1;
  tid?: string;
  pchain?: string;
  schain?: SupplyChain;
  ext?: Ext;
}

export interface BidRequest {
  id: string;
  imp: Imp[];
  site?: Site;
  app?: App;
  device?: Device;
  user?: User;
  test?: 0 | 1;
  /** Auction type: 1 first price, 2 second price plus. */
  at?: number;
  tmax?: number;
  wseat?: string[];
  bseat?: string[];
  allimps?: 0 | 1;
  cur?: string[];
  wlang?: string[];
  bcat?: string[];
  cattax?: number;
  badv?: string[];
  bapp?: string[];
  source?: Source;
  regs?: Regs;
  ext?: Ext;
}

export interface Bid {
  id: string;
  impid: string;
  price: number;
  nurl?: string;
  burl?: string;
  lurl?: string;
  adm?: string;
  adid?: string;
  adomain?: string[];
  bundle?: string;
  iurl?: string;
  cid?: string;
  crid?: string;
  cattax?: number;
  cat?: string[];
  attr?: number[];
  api?: number;
  protocol?: number;
  dealid?: string;
  w?: number;
  h?: number;
  exp?: number;
  dur?: number;
  /** Markup type: 1 banner, 2 video, 3 audio, 4 native. */
  mtype?: number;
  ext?: Ext;
}

export interface SeatBid {
  bid: Bid[];
  seat?: string;
  group?: 0 | 1;
  ext?: Ext;
}

export interface BidResponse {
  id: string;
  seatbid?: SeatBid[];
  bidid?: string;
  cur?: string;
  customdata?: string;
  /** No-bid reason (OpenRTB 2.6 list 5.24 / AdCOM). */
  nbr?: number;
  ext?: Ext;
}

/** Markup types (Bid.mtype). */
export const MTYPE = { banner: 1, video: 2, audio: 3, native: 4 } as const;

/** Video protocols (AdCOM "Creative Subtypes - Audio/Video"): VAST 2.0 .. 4.x, inline and wrapper. */
export const VIDEO_PROTOCOLS = {
  vast2: 2,
  vast3: 3,
  vast2Wrapper: 5,
  vast3Wrapper: 6,
  vast4: 7,
  vast4Wrapper: 8,
} as const;

/** The auction macros of OpenRTB 2.6 section 4.4, filled in nurl, burl, lurl and adm. */
export const AUCTION_MACROS = [
  'AUCTION_ID',
  'AUCTION_BID_ID',
  'AUCTION_IMP_ID',
  'AUCTION_SEAT_ID',
  'AUCTION_AD_ID',
  'AUCTION_PRICE',
  'AUCTION_CURRENCY',
  'AUCTION_MBR',
  'AUCTION_LOSS',
  'AUCTION_MIN_TO_WIN',
  'AUCTION_MULTIPLIER',
  'AUCTION_IMP_TS',
  'AUCTION_DISCOUNT_PCT',
  'AUCTION_DISCOUNT_CPM',
] as const;

import { DOMParser, type Element as XmlElement, type Node as XmlNode } from '@xmldom/xmldom';
import { SaxesParser } from 'saxes';

/**
 * A small element tree of an XML document: local names (no prefixes), attributes, the element's own
 * text (text and CDATA) and its children. Demand answers are read through it: saxes builds it for a
 * well-formed document (several times faster than a DOM), and xmldom, which forgives what a careless
 * ad server writes, builds it for the rest, so reading a sloppy answer is slower, never refused.
 */
export interface XmlTreeNode {
  name: string;
  attrs: Record<string, string>;
  text: string;
  children: XmlTreeNode[];
  parent: XmlTreeNode | null;
  /** Where the element is in the document's text: only in a tree of parseXmlTreeAt. */
  at?: XmlSpan;
}

/**
 * Where an element is in its document's text (string offsets): `<Impression id="1">…</Impression>`
 * runs from `start` (its `<`) to `end` (after the end tag's `>`), its content from `inner` (after
 * the start tag's `>`) to `close` (the end tag's `<`). A self-closed element (`<Impression/>`) has
 * no content nor end tag: `inner`, `close` and `end` are all after its `/>`.
 */
export interface XmlSpan {
  start: number;
  inner: number;
  close: number;
  end: number;
}

const localName = (qualified: string): string => {
  const colon = qualified.indexOf(':');
  return colon < 0 ? qualified : qualified.slice(colon + 1);
};

/**
 * Builds trees with one saxes parser, reused: its end() leaves it in a clean state (saxes' own
 * contract), and making a parser (its state table, its handlers) was some 5 KB of garbage per demand
 * answer, more young collections on the serving core. A parser that threw mid-document is dropped
 * for a new one. Parsing is synchronous and its handlers never parse, so one builder serves all.
 */
class StrictTrees {
  private root: XmlTreeNode | null = null;
  private current: XmlTreeNode | null = null;
  /** The text being read when its elements' spans are asked for (tree's `spans`), and where the parser's input starts in it. */
  private source: string | null = null;
  private shift = 0;
  private parser = this.newParser();

  private newParser(): SaxesParser {
    const parser = new SaxesParser();
    parser.on('opentag', (tag) => {
      const attrs: Record<string, string> = {};
      for (const key in tag.attributes) attrs[localName(key)] = String(tag.attributes[key]);
      const node: XmlTreeNode = { name: localName(tag.name), attrs, text: '', children: [], parent: this.current };
      if (this.source !== null) {
        // (no '<' inside a start tag of well-formed XML, not even in an attribute's value)
        const inner = this.shift + parser.position;
        node.at = { start: this.source.lastIndexOf('<', inner - 1), inner, close: inner, end: inner };
      }
      if (this.current) this.current.children.push(node);
      else this.root = node;
      this.current = node;
    });
    parser.on('closetag', (tag) => {
      const at = this.current?.at;
      if (at && this.source !== null && !tag.isSelfClosing) {
        at.end = this.shift + parser.position;
        at.close = this.source.lastIndexOf('<', at.end - 1);
      }
      this.current = this.current?.parent ?? null;
    });
    const addText = (t: string) => {
      if (this.current) this.current.text += t;
    };
    parser.on('text', addText);
    parser.on('cdata', addText);
    return parser;
  }

  /**
   * The document's root element; throws on what is not well-formed XML. With `spans`, each element
   * has its XmlSpan in `spans.source`, of which `xml` is the part from `spans.shift` on.
   */
  tree(xml: string, spans?: { source: string; shift: number }): XmlTreeNode | null {
    this.root = this.current = null;
    this.source = spans?.source ?? null;
    this.shift = spans?.shift ?? 0;
    try {
      this.parser.write(xml).close();
      return this.root;
    } catch (error) {
      this.parser = this.newParser();
      throw error;
    } finally {
      this.root = this.current = this.source = null;
    }
  }
}

const strictTrees = new StrictTrees();

function fromDom(el: XmlElement, parent: XmlTreeNode | null): XmlTreeNode {
  const attrs: Record<string, string> = {};
  for (let i = 0; i < el.attributes.length; i++) {
    const a = el.attributes.item(i);
    if (a) attrs[a.localName ?? localName(a.name)] = a.value;
  }
  const node: XmlTreeNode = { name: el.localName ?? localName(el.tagName), attrs, text: '', children: [], parent };
  for (let n: XmlNode | null = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1) node.children.push(fromDom(n as XmlElement, node));
    else if (n.nodeType === 3 || n.nodeType === 4) node.text += n.nodeValue ?? '';
  }
  return node;
}

function lenientTree(xml: string): XmlTreeNode | null {
  const doc = new DOMParser({ onError: () => undefined }).parseFromString(xml, 'text/xml');
  const root = doc.documentElement as XmlElement | null;
  return root ? fromDom(root, null) : null;
}

/**
 * A byte-order mark or blank lines before the XML declaration (a server's template printing
 * newlines first) make the document ill-formed to both parsers; a player's reads it: trimmed first
 * (a copy only for such an answer).
 */
function withoutLeadingBlanks(xml: string): string {
  const first = xml.charCodeAt(0);
  return first <= 32 || first === 0xfeff ? xml.trimStart() : xml;
}

/** The document's root element, or null when not even a forgiving parser finds one. Never throws. */
export function parseXmlTree(xml: string): XmlTreeNode | null {
  xml = withoutLeadingBlanks(xml);
  try {
    return strictTrees.tree(xml);
  } catch {
    try {
      return lenientTree(xml);
    } catch {
      return null;
    }
  }
}

/**
 * The root element of a well-formed document with where each element is in `xml` (XmlTreeNode.at), for
 * a caller that changes the text in place; null for anything else (a forgiving parser's tree has no
 * place in the text). Never throws.
 */
export function parseXmlTreeAt(xml: string): XmlTreeNode | null {
  const trimmed = withoutLeadingBlanks(xml);
  try {
    return strictTrees.tree(trimmed, { source: xml, shift: xml.length - trimmed.length });
  } catch {
    return null;
  }
}

export const childrenNamed = (el: XmlTreeNode | null | undefined, name: string): XmlTreeNode[] =>
  el ? el.children.filter((c) => c.name === name) : [];
export const childNamed = (el: XmlTreeNode | null | undefined, name: string): XmlTreeNode | null =>
  el?.children.find((c) => c.name === name) ?? null;

/** Descendants named `name`, in document order. */
export function descendantsNamed(el: XmlTreeNode, name: string, out: XmlTreeNode[] = []): XmlTreeNode[] {
  for (const c of el.children) {
    if (c.name === name) out.push(c);
    descendantsNamed(c, name, out);
  }
  return out;
}

/** The text of an element, trimmed; an element with children adds theirs after its own (VAST reads leaves only). */
export function textOf(el: XmlTreeNode | null | undefined): string {
  if (!el) return '';
  if (!el.children.length) return el.text.trim();
  let all = el.text;
  for (const c of el.children) all += textOf(c);
  return all.trim();
}

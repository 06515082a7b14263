/**
 * A strict, small XML 1.0 well-formedness checker for the plots' tests (no dependency): one root,
 * balanced tags, quoted and unique attributes, only the five named entities and character
 * references, no characters XML forbids. Returns the element tree, or throws naming the offset.
 */
export interface XmlElement {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  /** The element's own character data, entities decoded. */
  text: string;
}

const NAME = /^[A-Za-z_:][A-Za-z0-9_.:-]*/;
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'" };
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function decode(s: string, at: number): string {
  if (s.includes("<")) throw new Error(`"<" in character data or an attribute value at ${at}`);
  return s.replace(/&([^;]*);?/g, (m, body: string) => {
    if (!m.endsWith(";")) throw new Error(`an "&" that starts no reference at ${at}: ${JSON.stringify(s.slice(0, 40))}`);
    if (body in ENTITIES) return ENTITIES[body]!;
    const code = /^#x[0-9a-fA-F]+$/.test(body) ? parseInt(body.slice(2), 16) : /^#[0-9]+$/.test(body) ? parseInt(body.slice(1), 10) : NaN;
    if (!Number.isFinite(code)) throw new Error(`unknown entity &${body}; at ${at}`);
    return String.fromCodePoint(code);
  });
}

export function parseXml(doc: string): XmlElement {
  const bad = FORBIDDEN.exec(doc);
  if (bad) throw new Error(`a character XML forbids (U+${bad[0].charCodeAt(0).toString(16)}) at ${bad.index}`);
  let i = 0;
  if (doc.startsWith("<?xml")) {
    const end = doc.indexOf("?>");
    if (end < 0) throw new Error("unterminated XML declaration");
    i = end + 2;
  }
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (i < doc.length) {
    const lt = doc.indexOf("<", i);
    const chunk = doc.slice(i, lt < 0 ? doc.length : lt);
    if (chunk.trim() !== "") {
      if (stack.length === 0) throw new Error(`text outside the root at ${i}`);
      stack[stack.length - 1]!.text += decode(chunk, i);
    }
    if (lt < 0) break;
    i = lt;
    if (doc.startsWith("</", i)) {
      const m = NAME.exec(doc.slice(i + 2));
      const close = doc.indexOf(">", i);
      if (!m || close < 0 || doc.slice(i + 2 + m[0].length, close).trim() !== "") throw new Error(`a malformed end tag at ${i}`);
      const open = stack.pop();
      if (!open || open.name !== m[0]) throw new Error(`</${m[0]}> at ${i} closes ${open ? `<${open.name}>` : "nothing"}`);
      i = close + 1;
      continue;
    }
    const m = NAME.exec(doc.slice(i + 1));
    if (!m) throw new Error(`a "<" that starts no tag at ${i}`);
    i += 1 + m[0].length;
    const attrs: Record<string, string> = {};
    for (;;) {
      const ws = /^\s*/.exec(doc.slice(i))![0];
      i += ws.length;
      if (doc.startsWith("/>", i) || doc[i] === ">") break;
      if (ws === "") throw new Error(`no space before an attribute at ${i}`);
      const an = NAME.exec(doc.slice(i));
      if (!an) throw new Error(`a malformed attribute at ${i}`);
      i += an[0].length;
      const q = /^\s*=\s*(["'])/.exec(doc.slice(i));
      if (!q) throw new Error(`attribute ${an[0]} without a quoted value at ${i}`);
      i += q[0].length;
      const end = doc.indexOf(q[1]!, i);
      if (end < 0) throw new Error(`an unterminated attribute value at ${i}`);
      if (an[0] in attrs) throw new Error(`attribute ${an[0]} twice at ${i}`);
      attrs[an[0]] = decode(doc.slice(i, end), i);
      i = end + 1;
    }
    const node: XmlElement = { name: m[0], attrs, children: [], text: "" };
    if (stack.length > 0) stack[stack.length - 1]!.children.push(node);
    else if (root) throw new Error(`a second root element <${m[0]}> at ${i}`);
    else root = node;
    if (doc.startsWith("/>", i)) i += 2;
    else {
      i += 1;
      stack.push(node);
    }
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1]!.name}> is never closed`);
  if (!root) throw new Error("no root element");
  return root;
}

/** Every element of the tree, depth first. */
export function allElements(e: XmlElement): XmlElement[] {
  return [e, ...e.children.flatMap(allElements)];
}

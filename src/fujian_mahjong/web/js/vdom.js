// A small keyed renderer (docs/web.md): the table describes its page as plain objects
// (h(tag, props, ...children)) and patch() brings the DOM in line with them, keeping every
// element whose place is unchanged — children with a `key` are matched by key, the others
// by position and tag — so a tile, a button or a river that did not change keeps its DOM
// node (a tap never lands on a replaced node, a CSS animation runs once). A real DOM node
// may stand as a child: it is inserted as it is.

const SVG = "http://www.w3.org/2000/svg";

function flatten(list, out) {
  for (const c of list) {
    if (c === null || c === undefined || c === false || c === true) continue;
    if (Array.isArray(c)) flatten(c, out);
    else out.push(typeof c === "number" ? String(c) : c);
  }
  return out;
}

/** A virtual element; props: class, dataset, style, key, on<event>, and attributes. */
export function h(tag, props, ...children) {
  const p = props || {};
  return { tag, key: p.key ?? null, props: p, children: flatten(children, []) };
}

const isNode = (v) => typeof Node !== "undefined" && v instanceof Node;

function setProps(el, old, props) {
  for (const [k, v] of Object.entries(props)) {
    if (k === "key" || old[k] === v) continue;
    if (k === "class") {
      if (el.namespaceURI === SVG) el.setAttribute("class", v || "");
      else el.className = v || "";
    } else if (k === "dataset") {
      const before = old.dataset || {};
      for (const dk of Object.keys(before)) if (!v || v[dk] === undefined || v[dk] === null) delete el.dataset[dk];
      for (const [dk, dv] of Object.entries(v || {})) if (dv !== undefined && dv !== null && before[dk] !== dv) el.dataset[dk] = String(dv);
    } else if (k.startsWith("on")) {
      const ev = k.slice(2);
      el.__on = el.__on || {};
      if (!el.__on[ev]) el.addEventListener(ev, (e) => el.__on[ev] && el.__on[ev](e));
      el.__on[ev] = v;
    } else if (k === "value" || k === "checked") {
      el[k] = v;
    } else if (v === undefined || v === null || v === false) {
      el.removeAttribute(k);
    } else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const k of Object.keys(old)) {
    if (k in props || k === "key") continue;
    if (k === "class") el.removeAttribute("class");
    else if (k === "dataset") for (const dk of Object.keys(old.dataset || {})) delete el.dataset[dk];
    else if (k.startsWith("on")) {
      if (el.__on) el.__on[k.slice(2)] = null;
    } else el.removeAttribute(k);
  }
}

function create(v, ns) {
  if (typeof v === "string") return document.createTextNode(v);
  if (isNode(v)) return v;
  const space = v.tag === "svg" ? SVG : ns;
  const el = space ? document.createElementNS(space, v.tag) : document.createElement(v.tag);
  setProps(el, {}, v.props);
  reconcile(el, v.children, space);
  el.__v = v;
  return el;
}

function update(el, v) {
  setProps(el, el.__v.props, v.props);
  reconcile(el, v.children, el.namespaceURI === SVG ? SVG : null);
  el.__v = v;
}

function matches(node, v) {
  if (typeof v === "string") return node.nodeType === 3;
  return node.nodeType === 1 && node.__v && node.__v.tag === v.tag && node.__v.key === null && v.key === null;
}

function reconcile(parent, vs, ns) {
  const old = Array.from(parent.childNodes);
  const keyed = new Map();
  const loose = [];
  for (const n of old) {
    if (n.__v && n.__v.key !== null) keyed.set(`${n.__v.tag}\u0000${n.__v.key}`, n);
    else loose.push(n);
  }
  const used = new Set();
  let li = 0;
  const result = [];
  for (const v of vs) {
    let node = null;
    if (isNode(v)) node = v;
    else if (typeof v !== "string" && v.key !== null) {
      const n = keyed.get(`${v.tag}\u0000${v.key}`);
      if (n && !used.has(n)) {
        node = n;
        update(n, v);
      }
    } else if (li < loose.length && matches(loose[li], v)) {
      node = loose[li++];
      if (typeof v === "string") {
        if (node.data !== v) node.data = v;
      } else update(node, v);
    }
    if (!node) node = create(v, ns);
    used.add(node);
    result.push(node);
  }
  for (const n of old) if (!used.has(n)) parent.removeChild(n);
  let ref = parent.firstChild;
  for (const n of result) {
    if (n === ref) ref = ref.nextSibling;
    else parent.insertBefore(n, ref);
  }
}

/** Bring the children of `container` in line with the virtual children `vs`. */
export function patch(container, vs) {
  reconcile(container, flatten(Array.isArray(vs) ? vs : [vs], []), container.namespaceURI === SVG ? SVG : null);
}

// @ts-check
/** DOM building for the wallet console page: text only through textContent, never innerHTML. */
/** The page's element with this id (page.ts has every id the script asks for). */
export const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id))
/**
 * @param {string} tag
 * @param {Record<string, any>} [attrs] `text` becomes textContent, `onclick` the handler, the rest attributes
 * @param {(Node | string | null | undefined)[]} [children]
 * @returns {any} the element (any: callers set `checked`, `dataset` and the like on what they made)
 */
export function el(tag, attrs, children) {
  const e = document.createElement(tag)
  attrs = attrs || {}
  Object.keys(attrs).forEach((k) => {
    const v = attrs[k]
    if (v === undefined || v === null) return
    if (k === 'text') e.textContent = v
    else if (k === 'onclick') e.onclick = v
    else e.setAttribute(k, v)
  })
  ;(children || []).forEach((c) => {
    if (c) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c)
  })
  return e
}
/** @template {Node} T @param {T} node @returns {T} */
export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild)
  return node
}
export function short(a) {
  return a && a.length > 14 ? `${a.slice(0, 8)}…${a.slice(-6)}` : a
}
export function checkbox(name, value, checked) {
  const c = el('input', { type: 'checkbox', 'data-name': name, value: value })
  c.checked = !!checked
  return el('label', {}, [c, ` ${value}`])
}
export function checked(root, name) {
  return Array.prototype.slice
    .call(root.querySelectorAll(`input[data-name="${name}"]`))
    .filter((c) => c.checked)
    .map((c) => c.value)
}
export function rows(list) {
  const dl = el('dl', { class: 'rows' })
  list.forEach((r) => {
    dl.appendChild(el('dt', { text: r.label }))
    dl.appendChild(
      el('dd', {}, [
        el('span', { class: /^0x/.test(r.value) ? 'mono' : '', text: r.value }),
        r.detail ? el('span', { class: 'detail', text: r.detail }) : null,
      ]),
    )
  })
  return dl
}
export function tree(nodes) {
  const ul = el('ul', { class: 'tree' })
  nodes.forEach((n) => {
    const li = el('li', {}, [el('span', { class: 'k', text: n.name }), el('span', { class: 't', text: n.type })])
    if (n.children) li.appendChild(tree(n.children))
    else li.appendChild(el('span', { class: 'v', text: n.value }))
    ul.appendChild(li)
  })
  return ul
}
export function table(head, body) {
  const t = el('table'),
    tr = el('tr')
  head.forEach((x) => {
    tr.appendChild(el('th', { text: x }))
  })
  t.appendChild(el('thead', {}, [tr]))
  const tb = el('tbody')
  body.forEach((r) => {
    tb.appendChild(r)
  })
  t.appendChild(tb)
  return t
}

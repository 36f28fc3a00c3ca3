import { describe, expect, test } from 'vitest'
import { html, raw } from './html.ts'

describe('html', () => {
  test('behavior: interpolations are escaped unless already safe; arrays join', () => {
    const name = `<img src=x onerror="alert('x')">&`
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;">&lt;img src=x ' +
        'onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;</p>',
    )
    expect(html`<ul>${['a', 'b'].map((v) => html`<li>${v}</li>`)}</ul>`.value).toBe('<ul><li>a</li><li>b</li></ul>')
    expect(html`${raw('<b>')}${null}${undefined}${false}${0}`.value).toBe('<b>0')
  })
})

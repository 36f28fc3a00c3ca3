// @ts-check
/**
 * The dashboard's script (served at /assets/app.js): pages work without it; it only puts the canonical URL in the
 * address bar and adds copy-to-clipboard buttons. Type-checked by tsconfig.browser.json (DOM types), served as written.
 */
;(() => {
  const canonical = /** @type {HTMLMetaElement | null} */ (document.querySelector('meta[name="chaingate-url"]'))
  if (canonical && window.history && canonical.content !== location.pathname + location.search) {
    history.replaceState(null, '', canonical.content)
  }
  const status = document.getElementById('copy-status')
  /** @param {string} text */
  function announce(text) {
    if (status) {
      status.textContent = ''
      setTimeout(() => {
        status.textContent = text
      }, 10)
    }
  }
  const buttons = /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('button[data-copy]'))
  buttons.forEach((button) => {
    button.hidden = false
    button.addEventListener('click', () => {
      // An input (its value is copied) or any other element (its text); selected on the fallback path when it can be.
      /** @type {(HTMLElement & Partial<Pick<HTMLInputElement, 'value' | 'select'>>) | null} */
      const input = document.getElementById(/** @type {string} */ (button.getAttribute('data-copy')))
      if (!input) return
      const text = /** @type {string} */ (input.tagName === 'INPUT' ? input.value : input.textContent)
      const done = () => {
        button.textContent = 'Copied'
        announce('Copied to the clipboard')
        setTimeout(() => {
          button.textContent = 'Copy'
        }, 1500)
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done, () => {
          if (input.select) {
            input.select()
            document.execCommand('copy')
          }
          done()
        })
      } else if (input.select) {
        input.select()
        document.execCommand('copy')
        done()
      }
    })
  })
})()

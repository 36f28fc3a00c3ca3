/**
 * Issue 12 item 4 in Chromium: the console shows each request as a person reads it (network name, labelled
 * account, amount in ETH, fees, decoded unlimited approve with the simulation's revert reason, personal_sign text,
 * the EIP-712 tree with its domain and an unlimited-permit warning), new requests arrive by push (no polling),
 * and nothing overflows its panel, on a desktop and on a phone-sized viewport. Screenshots are written and checked.
 */
import { mkdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import {
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  maxUint256,
  stringToHex,
  toFunctionSelector,
  concat,
  size,
  numberToHex,
} from 'viem'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { ACCOUNT_0, CHAIN_A, approve, dapp, useWalletOnDevnets, waitForPending } from './helpers/wallet.ts'
import { describeWithPrograms, programPath } from '../support/programs.ts'

const A = `eip155:${CHAIN_A}`
const SHOTS = join(tmpdir(), 'chaingate-console-screens')
const TOKEN = '0x00000000000000000000000000000000000c0de5'
const SPENDER = '0x1111111111111111111111111111111111111111'

/**
 * Runtime code that always reverts with Error(reason): CODECOPY the encoded error after the 12-byte prologue, REVERT
 * it.
 */
function revertingCode(reason: string): `0x${string}` {
  const data = concat([toFunctionSelector('Error(string)'), encodeAbiParameters([{ type: 'string' }], [reason])])
  const n = size(data)
  const len = n.toString(16).padStart(2, '0')
  return concat([`0x60${len}600c600039` as `0x${string}`, `0x60${len}6000fd` as `0x${string}`, data])
}

let browser: Browser | undefined

/** Panels and cards whose content is wider than they are (each would need a horizontal scrollbar). */
const overflowing = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('.panel, .card, .topbar, main')]
      .filter((e) => e.scrollWidth > e.clientWidth + 1)
      .map((e) => `${e.id || e.className}: ${e.scrollWidth} > ${e.clientWidth}`),
  )

describeWithPrograms(['chromium'], 'wallet console in Chromium', () => {
  const wallet = useWalletOnDevnets()
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    browser = await chromium.launch({ executablePath: programPath('chromium'), args: ['--no-sandbox'] })
  })
  afterAll(async () => {
    await browser?.close()
  })

  test('requests as a person reads them, pushed without polling; screenshots without overflow', async () => {
    await fetch(wallet.devnets.anvils[0]!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'anvil_setCode',
        params: [TOKEN, revertingCode('ERC20: insufficient allowance')],
      }),
    })
    const console_ = await browser!.newPage({ viewport: { width: 1280, height: 900 } })
    // Script errors and CSP violations (the page allows only its own script and stylesheet) show up here.
    const pageErrors: string[] = []
    console_.on('console', (m) => void (m.type() === 'error' && pageErrors.push(m.text())))
    console_.on('pageerror', (e) => void pageErrors.push(e.message))
    const apiCalls: string[] = []
    console_.on('request', (r) => void (r.url().includes('/console/api/state') && apiCalls.push(r.url())))
    await console_.goto(wallet.h.consoleUrl)
    await console_.locator('#live.on').waitFor()
    await console_.getByText('Nothing waiting').waitFor()
    // Idle: the page does not poll.
    const before = apiCalls.length
    await new Promise((r) => setTimeout(r, 2500))
    expect(apiCalls.length).toBe(before)

    const origin = 'https://app.uniswap-lookalike.example'
    const d = dapp(wallet.h.url, origin)
    const created = d.client.createSession({
      optionalScopes: {
        [A]: { methods: ['personal_sign', 'eth_signTypedData_v4', 'eth_sendTransaction'], notifications: [] },
      } as any,
    })
    // The session request appears by push.
    await console_.locator('#pending article[data-kind="session"]').waitFor({ timeout: 5000 })
    const p = await waitForPending(wallet.h, (x) => x.origin === origin && x.kind === 'session')
    await approve(wallet.h, p.id, { accounts: [ACCOUNT_0] })
    await created
    // invokeMethod resolves with the spec's envelope {scope, result: {method, result}}.
    const invoke = (method: string, params: unknown) =>
      d.client.invokeMethod({ scope: A as any, request: { method, params } as any }).then(
        (r: any) => r.result.result,
        (e: unknown) => e,
      )

    const sends = [
      invoke('eth_sendTransaction', [
        { from: ACCOUNT_0, to: '0x000000000000000000000000000000000000dEaD', value: numberToHex(10n ** 15n) },
      ]),
      invoke('eth_sendTransaction', [
        {
          from: ACCOUNT_0,
          to: TOKEN,
          gas: '0x186a0',
          data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [SPENDER, maxUint256] }),
        },
      ]),
      invoke('personal_sign', [stringToHex('Sign in to app.example\nNonce: 42'), ACCOUNT_0]),
      invoke('eth_signTypedData_v4', [
        ACCOUNT_0,
        JSON.stringify({
          types: {
            EIP712Domain: [
              { name: 'name', type: 'string' },
              { name: 'verifyingContract', type: 'address' },
            ],
            Permit: [
              { name: 'owner', type: 'address' },
              { name: 'spender', type: 'address' },
              { name: 'value', type: 'uint256' },
              { name: 'nonce', type: 'uint256' },
              { name: 'deadline', type: 'uint256' },
            ],
          },
          primaryType: 'Permit',
          domain: { name: 'USD Coin', verifyingContract: TOKEN },
          message: { owner: ACCOUNT_0, spender: SPENDER, value: maxUint256.toString(), nonce: 0, deadline: 4102444800 },
        }),
      ]),
    ]
    const cards = console_.locator('#pending article.request')
    await expect.poll(() => cards.count(), { timeout: 10_000 }).toBe(4)

    const transfer = console_.locator('#pending article', { hasText: '0x000000000000000000000000000000000000dEaD' })
    await expect.poll(() => transfer.innerText()).toContain('0.001 ETH')
    const t = await transfer.innerText()
    expect(t).toContain('devnet-0 (chain 31337)')
    expect(t).toContain('your account #0')
    expect(t).toMatch(/Estimated fee\s+0\.\d+ ETH/)
    expect(t).toMatch(/Max fee\s+0\.\d+ ETH/)
    expect(t).toMatch(/gwei/)
    expect(t).toMatch(/Nonce\s+\d+/)
    expect(t).toContain('Simulation: the transaction succeeds')

    const approveCard = console_.locator('#pending article[data-kind="eth_sendTransaction"]', { hasText: 'UNLIMITED' })
    const a = await approveCard.innerText()
    expect(a).toContain(`Approve ${SPENDER} to spend an UNLIMITED amount`)
    expect(a).toContain('Unlimited approval')
    expect(a).toContain('it would revert — ERC20: insufficient allowance')

    const sign = await console_.locator('#pending article[data-kind="personal_sign"]').innerText()
    expect(sign).toContain('Sign in to app.example\nNonce: 42')
    expect(sign).not.toContain('0x5369676e')

    const typed = console_.locator('#pending article[data-kind="eth_signTypedData_v4"]')
    const ty = await typed.innerText()
    expect(ty).toContain('The domain has no chainId')
    expect(ty).toContain('Unlimited permit (Permit)')
    expect(await typed.locator('ul.tree li', { hasText: 'verifyingContract' }).count()).toBeGreaterThan(0)
    expect(await typed.locator('ul.tree li', { hasText: 'spender' }).first().innerText()).toContain(SPENDER)

    expect(await overflowing(console_)).toEqual([])
    const desktop = join(SHOTS, 'console-desktop.png')
    await console_.screenshot({ path: desktop, fullPage: true })
    expect(statSync(desktop).size).toBeGreaterThan(20_000)
    await console_.setViewportSize({ width: 390, height: 844 })
    expect(await overflowing(console_)).toEqual([])
    await console_.screenshot({ path: join(SHOTS, 'console-phone.png'), fullPage: true })

    // Approve the transfer and reject the approve: the activity list shows both, the transfer with its receipt.
    await transfer.locator('button.approve').click()
    await approveCard.locator('button.reject').click()
    await console_.locator('#pending article[data-kind="personal_sign"] button.approve').click()
    await typed.locator('button.reject').click()
    const [sent, rejected, signed] = await Promise.all(sends)
    expect(sent).toMatch(/^0x[0-9a-f]{64}$/)
    expect(String((rejected as Error).message)).toMatch(/User rejected/)
    expect(signed).toMatch(/^0x[0-9a-f]{130}$/)
    const activity = console_.locator('#activity')
    await activity.getByText('receipt: success').waitFor({ timeout: 10_000 })
    const act = await activity.innerText()
    expect(act).toContain(`tx ${String(sent).slice(0, 8)}`)
    expect(act).toMatch(/sent/)
    expect(act).toMatch(/rejected/)
    expect(act).toMatch(/signed/)
    await console_.setViewportSize({ width: 1280, height: 900 })
    expect(await console_.locator('#accounts').innerText()).toMatch(/devnet-0 \(31337\)[\s\S]*\d+(\.\d+)? ETH/i)
    expect(await overflowing(console_)).toEqual([])
    await console_.screenshot({ path: join(SHOTS, 'console-activity.png'), fullPage: true })
    expect(await console_.evaluate(() => getComputedStyle(document.querySelector('#activity col.c4')!).width)).not.toBe(
      'auto',
    )
    expect(pageErrors).toEqual([])
    await d.close()
  }, 90_000)
})

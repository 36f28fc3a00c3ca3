/**
 * The close codes the gateway ends a client's WebSocket with (RFC 6455 §7.4; 4000-4999 are the application's own),
 * for the client (./ws-client.ts) and its writer (./ws-send.ts) alike. docs/errors.md says what each means to a client.
 */
export const WS_CLOSE = {
  /** Policy: daily balance exhausted, key revoked, network disabled, a client that does not read. */
  policy: 1008,
  /** No node reachable for subscriptions within gateway.subscriptionFailoverMs: resubscribe. */
  tryAgain: 1013,
  goingAway: 1001,
  /** `chaingate reload` removed the connection's network from the config (docs/errors.md). */
  networkRemoved: 4004,
} as const

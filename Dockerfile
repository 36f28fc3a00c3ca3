# syntax=docker/dockerfile:1
# chaingate's container image (docs/deploy.md, "Container image"). Build:
#   docker build --build-arg VERSION=$(node -p 'require("./package.json").version') \
#     --build-arg COMMIT=$(git rev-parse HEAD) -t chaingate .
# Anvil (embedded local chains) is left out unless --build-arg WITH_ANVIL=1: replicas serve external nodes.
# test/e2e/deploy-package.test.ts packs, installs and starts the package the way this file does.
ARG NODE_VERSION=22

# 1. Build: dev dependencies, TypeScript → dist/, then the npm tarball (what `npm publish` would ship).
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm pack --pack-destination /tmp && mv /tmp/chaingate-*.tgz /tmp/chaingate.tgz

# 2. Run: the tarball unpacked where `npm install` would put it, then the build's package-lock.json installed with
#    production dependencies only (`npm ci`), so the image runs the exact versions the tests ran (installing the
#    tarball would resolve its ranges afresh); `prepare` (tsc) is the build stage's. TypeScript is a dev dependency the
#    lockfile also lists as viem's optional peer (types only), so `--omit=dev` keeps it: removed. A non-root user.
FROM node:${NODE_VERSION}-bookworm-slim
ARG VERSION=0.0.0
ARG COMMIT=unknown
ARG WITH_ANVIL=0
LABEL org.opencontainers.image.title="chaingate" \
      org.opencontainers.image.description="Self-hostable chain-node JSON-RPC gateway" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}" \
      org.opencontainers.image.licenses="MIT"
# tini as PID 1: forwards SIGTERM to node (which drains) and reaps children.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /tmp/chaingate.tgz /src/package-lock.json /tmp/
RUN mkdir -p node_modules/chaingate && tar -xzf /tmp/chaingate.tgz -C node_modules/chaingate --strip-components=1 \
    && cd node_modules/chaingate && cp /tmp/package-lock.json . && npm pkg delete scripts.prepare \
    && npm ci --omit=dev --no-audit --no-fund \
    && rm -rf node_modules/typescript \
    && if [ "$WITH_ANVIL" != "1" ]; then rm -rf node_modules/@foundry-rs/anvil-*; fi \
    && rm /tmp/chaingate.tgz /tmp/package-lock.json && npm cache clean --force \
    && mkdir -p /etc/chaingate /var/lib/chaingate && chown node:node /var/lib/chaingate
ENV NODE_ENV=production \
    CHAINGATE_CONFIG=/etc/chaingate/chaingate.yaml \
    CHAINGATE_DATA_DIR=/var/lib/chaingate
# The config file (read-only; deploy/config/chaingate.yaml is an example) and the data dir (writable; with
# PostgreSQL only logs, and only when log.destination is file).
VOLUME ["/var/lib/chaingate"]
USER node
# 8545: gateway (and /livez, /readyz, /startupz, /metrics unless gateway.operations.listen moves them, e.g. 9545).
EXPOSE 8545 9545
# With gateway.operations.token (deploy/config/chaingate.yaml), CHAINGATE_OPERATIONS_TOKEN is sent as the bearer token.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const t=process.env.CHAINGATE_OPERATIONS_TOKEN;fetch('http://127.0.0.1:'+(process.env.CHAINGATE_PROBE_PORT||8545)+'/livez',{headers:t?{authorization:'Bearer '+t}:{}}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "/app/node_modules/chaingate/deploy/container/start.sh"]

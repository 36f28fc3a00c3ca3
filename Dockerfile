# syntax=docker/dockerfile:1
# chaingate's container image (docs/deploy.md, "Docker and podman: what the tests run"). Build:
#   docker build --build-arg VERSION=$(node -p 'require("./package.json").version') \
#     --build-arg COMMIT=$(git rev-parse HEAD) -t chaingate .
# Anvil (embedded local chains) is left out unless --build-arg WITH_ANVIL=1: replicas serve external nodes.
# test/e2e/deploy-package.test.ts packs, installs and starts the package the way this file does.
ARG NODE_VERSION=22
# package-lock.json is written by npm 11; the npm 10 that node:22 ships refuses it as out of sync ("Missing:
# utf-8-validate@5.0.10 from lock file"), so both stages run `npm ci` with npm 11.
ARG NPM_VERSION=11

# 1. Build: dev dependencies, TypeScript → dist/, then the npm tarball (what `npm publish` would ship).
FROM node:${NODE_VERSION}-bookworm-slim AS build
ARG NPM_VERSION
RUN npm install -g npm@${NPM_VERSION} --no-audit --no-fund && npm cache clean --force
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
ARG NPM_VERSION
ARG VERSION=0.0.0
ARG COMMIT=unknown
ARG WITH_ANVIL=0
LABEL org.opencontainers.image.title="chaingate" \
      org.opencontainers.image.description="Self-hostable chain-node JSON-RPC gateway" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}" \
      org.opencontainers.image.licenses="MIT"
# tini as PID 1: forwards SIGTERM to node (which drains) and reaps children.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/* \
    && npm install -g npm@${NPM_VERSION} --no-audit --no-fund && npm cache clean --force
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
# GET /livez where the config serves it (gateway port, or gateway.operations.listen) with the config's
# gateway.operations.token, read as chaingate reads it (deploy/container/healthcheck.mjs).
HEALTHCHECK --interval=10s --timeout=10s --start-period=30s --retries=3 \
  CMD ["node", "/app/node_modules/chaingate/deploy/container/healthcheck.mjs"]
ENTRYPOINT ["/usr/bin/tini", "--", "/app/node_modules/chaingate/deploy/container/start.sh"]

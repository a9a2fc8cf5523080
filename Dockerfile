# syntax=docker/dockerfile:1
# Build: compile sqlite3 from source (no prebuilt download) and the TypeScript sources.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY migrations ./migrations
# `npm run build` also bundles the hosted pages' browser code (scripts/bundle-pages.mjs).
COPY scripts ./scripts
# `npm ci` runs the `prepare` script, which builds dist/.
RUN npm ci --no-audit --no-fund \
 && npm prune --omit=dev --no-audit --no-fund

# Run: only the built code and production dependencies, as the unprivileged `node` user.
FROM node:20-bookworm-slim
# MALLOC_ARENA_MAX: glibc's free memory kept per thread arena, about 100 MB after a load (see
# src/cli/commands/daemon/process.ts); `till daemon start` and `npm start` set the same.
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    TILL_DATA_DIR=/data \
    TILL_HOST=0.0.0.0 \
    TILL_PORT=4100
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
RUN mkdir -p /data /files && chown node:node /data /files
USER node
VOLUME ["/data"]
EXPOSE 4100
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.TILL_PORT || 4100) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/till.js"]
CMD ["daemon", "run"]

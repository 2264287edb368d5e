# The ferry worker, as compiled JavaScript: the build stage compiles dist/ (tsconfig.build.json) and
# bundles the workflows (dist/workflow-bundle.js), so the container starts without tsx or webpack.
FROM node:20.20.2-bookworm-slim AS build
WORKDIR /opt/ferry
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json worker.ts ./
COPY activities ./activities
COPY workflows ./workflows
COPY src ./src
COPY worker ./worker
COPY lab ./lab
COPY cli ./cli
COPY scripts/build-bundle.ts ./scripts/build-bundle.ts
RUN npx tsc -p tsconfig.build.json && node dist/scripts/build-bundle.js

FROM node:20.20.2-bookworm-slim
WORKDIR /opt/ferry
ENV NODE_ENV=production
# jemalloc: under glibc malloc the worker keeps fragmented arenas (bin/ferry-worker preloads it).
RUN apt-get update && apt-get install -y --no-install-recommends libjemalloc2 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=build /opt/ferry/dist ./dist
COPY bin/ferry-worker ./bin/ferry-worker
USER node
CMD ["bin/ferry-worker"]

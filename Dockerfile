# The ferry worker. Workflows are bundled at build time so the container starts without webpack.
FROM node:20.20.2-bookworm-slim
WORKDIR /opt/ferry
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json worker.ts ./
COPY activities ./activities
COPY workflows ./workflows
COPY src ./src
COPY worker ./worker
COPY scripts/build-bundle.ts ./scripts/build-bundle.ts
RUN node --import tsx scripts/build-bundle.ts
USER node
CMD ["node", "--import", "tsx", "worker.ts"]

# regapi service image: `docker compose up` builds it (docker-compose.yml).
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary matches.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# `npm install`, not `npm ci` (the lock misses other platforms' optional binaries).
# Scripts are skipped here because `prepare` compiles sources that are copied only below.
RUN npm install --no-audit --no-fund --ignore-scripts && npm rebuild better-sqlite3
COPY . .
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/public ./public
COPY --from=build /app/schema.graphql ./
# Room for the embedded SQLite file when DATABASE_URL is left at its default.
RUN mkdir -p data && chown node:node data
USER node
EXPOSE 3000
CMD ["node", "--heap-growing-percent=100", "--max-semi-space-size=8", "dist/src/main.js"]

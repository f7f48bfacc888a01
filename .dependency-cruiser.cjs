// The layer rules of docs/architecture.md as a check (`npm run check:deps`, a CI step after lint):
// dependencies point inwards, and no module reaches itself through its imports. ESLint keeps the
// rules that need the syntax (no SQL text or EntityManager calls in the domain); this file keeps
// the ones about which folder may import which.

/** Packages of the transports: express, Apollo, GraphQL and its schema builder. */
const TRANSPORT_PACKAGES =
  "(^|/)node_modules/(express|express-[^/]+|@apollo/[^/]+|@as-integrations/[^/]+|graphql|graphql-[^/]+|type-graphql)/";

/** The composition root (src/app.ts, src/main.ts, src/prepare-database.ts): it knows every layer, none knows it. */
const ROOT = "^src/(app|main|prepare-database)\\.ts$";

const layer = (name, from, to, comment) => ({
  name,
  comment,
  severity: "error",
  from: { path: from },
  to,
});

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "A cycle makes load order matter and every module in it depend on all the others.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    layer(
      "domain-knows-no-transport",
      "^src/domain/",
      { path: ["^src/(rest|graphql|http|cli|fixtures|delivery)/", ROOT] },
      "The domain holds the rules; transports, the CLI and the worker call it, never the other way.",
    ),
    layer(
      "domain-no-transport-packages",
      "^src/(domain|data|db|auth|delivery|entities|common|config)/",
      { path: TRANSPORT_PACKAGES },
      "express, Apollo and GraphQL belong to the transports (src/rest, src/graphql, src/http).",
    ),
    layer(
      "data-knows-only-db-and-entities",
      "^src/data/",
      { path: ["^src/(domain|rest|graphql|http|auth|cli|fixtures|delivery)/", ROOT] },
      "src/data holds the SQL and returns typed rows; what the rows mean is the domain's, which calls it.",
    ),
    layer(
      "db-knows-no-upper-layer",
      "^src/db/",
      { path: ["^src/(data|domain|rest|graphql|http|auth|cli|fixtures|delivery)/", ROOT] },
      "src/db is connections, statement helpers and failure classes under src/data.",
    ),
    layer(
      "leaves-import-no-layer",
      "^src/(common|config|entities)/",
      { path: "^src/", pathNot: "^src/(common|config|entities)/" },
      "Pure helpers, configuration and entities sit below every layer.",
    ),
    layer(
      "migrations-know-only-storage",
      "^src/migrations/",
      { path: ["^src/(domain|rest|graphql|http|auth|cli|fixtures|delivery)/", ROOT] },
      "A migration changes tables (and may backfill through src/data); it runs without the app.",
    ),
    layer(
      "graphql-knows-no-rest",
      "^src/graphql/",
      { path: "^src/rest/" },
      "The two transports do not know each other; what both need lives in src/http.",
    ),
    layer(
      "rest-knows-no-graphql",
      "^src/rest/",
      { path: "^src/graphql/" },
      "The two transports do not know each other; what both need lives in src/http.",
    ),
    layer(
      "http-knows-no-transport",
      "^src/http/",
      { path: ["^src/(rest|graphql|cli|fixtures)/", ROOT] },
      "src/http serves both transports, so it knows neither.",
    ),
    layer(
      "transports-reach-data-through-the-domain",
      "^src/(rest|graphql)/",
      { path: "^src/data/", dependencyTypesNot: ["type-only"] },
      "A transport reaches the database only through domain calls (it may name a row type).",
    ),
    layer(
      "delivery-knows-no-transport",
      "^src/delivery/",
      { path: ["^src/(rest|graphql|http|cli|fixtures)/", ROOT], pathNot: "^src/http/logger\\.ts$" },
      "The delivery worker runs without a request; it logs through src/http/logger.ts only.",
    ),
    layer(
      "auth-knows-no-transport",
      "^src/auth/",
      { path: ["^src/(rest|graphql|http|cli|fixtures|delivery)/", ROOT] },
      "authenticate() is the one credential check every transport calls.",
    ),
    layer(
      "runtime-knows-no-transport",
      "^src/runtime/",
      { path: ["^src/(rest|graphql|http|cli|fixtures)/", ROOT], pathNot: "^src/http/logger\\.ts$" },
      "The runtime starts what lives for the process (replicas, Redis, shared state, the worker); requests come later.",
    ),
    {
      name: "only-the-root-starts-the-runtime",
      comment:
        "main.ts (and an app built on its own, and `regapi worker`) starts the runtime once; everything else is handed what it needs.",
      severity: "error",
      from: {
        path: "^src/",
        pathNot: ["^src/(app|main)\\.ts$", "^src/runtime/", "^src/cli/commands/worker\\.command\\.ts$"],
      },
      to: { path: "^src/runtime/", dependencyTypesNot: ["type-only"] },
    },
    layer(
      "subscriptions-read-through-the-domain",
      "^src/graphql/subscriptions/",
      { path: "^src/(data|db|graphql/resolvers)/" },
      "The subscription server is handed the schema and the live events; what a subscriber reads, it reads through the schema's resolvers and the domain, not even a row type of its own.",
    ),
    layer(
      "shared-state-knows-no-transport",
      "^src/shared-state/",
      { path: ["^src/(rest|graphql|http|cli|fixtures|delivery|runtime)/", ROOT], pathNot: "^src/http/logger\\.ts$" },
      "What the instances share through Redis serves every layer above it and knows none of them.",
    ),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Type-only imports count: a cycle through types is still a cycle for the reader.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};

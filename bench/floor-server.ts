import "reflect-metadata";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ApolloServer } from "@apollo/server";
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from "@apollo/server/plugin/disabled";
import { expressMiddleware } from "@as-integrations/express5";
import express, { type Express } from "express";
import {
  assertObjectType,
  buildSchema,
  getNamedType,
  isObjectType,
  parse,
  printSchema,
  type ExecutionResult,
  type GraphQLOutputType,
} from "graphql";
import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";
import { getMetadataStorage } from "type-graphql";
import { compiledExecutorGateway } from "../src/graphql/execution/compiled-executor";
import { RESOLVERS, buildGraphqlSchema } from "../src/graphql/schema";

// The servers of bench/graphql-floor.ts that answer one read (the nested user, a users page) with
// no domain work: the answer regapi gave is held in memory and handed out by the resolvers, so what
// such a server costs per request is what the required stack costs for this query, whatever the
// data layer does.
//   apollo:  Express + Apollo Server 5 + regapi's type-graphql schema (its resolver wrappers,
//            class-validator on the arguments, @Authorized) executed by regapi's compiled executor;
//            every type-graphql resolver method returns its member of the held answer.
//   jit:     Express + one graphql-jit compiled query over a plain graphql-js schema of the same SDL
//            (default resolvers), looked up by the query text: no Apollo, no type-graphql.
//   express: Express sending the held answer: what HTTP, body parsing and JSON cost alone.

export type FloorSide = "apollo" | "jit" | "express";

type Answer = { data: Record<string, unknown> };

/** The one root field the held answer is of (`user`, `users`). */
function rootOf(answer: Answer): string {
  const [root, ...others] = Object.keys(answer.data);
  if (!root || others.length > 0) throw new Error("the floor holds the answer of one root field");
  return root;
}

/** Every type-graphql resolver method returns its member of the parent it is given. */
function resolversAnswerFrom(rootField: string, held: unknown): void {
  const targets = new Set<unknown>(RESOLVERS);
  for (const resolver of getMetadataStorage().fieldResolvers) {
    if (!targets.has(resolver.target)) continue;
    const root = resolver.params?.find((param) => param.kind === "root")?.index ?? 0;
    const name = resolver.schemaName;
    (resolver.target.prototype as Record<string, unknown>)[resolver.methodName] = async (...params: unknown[]) =>
      (params[root] as Record<string, unknown>)[name];
  }
  for (const resolver of getMetadataStorage().queries) {
    if (resolver.schemaName !== rootField) continue;
    (resolver.target.prototype as Record<string, unknown>)[resolver.methodName] = async () => held;
  }
}

/**
 * The held answer as instances of type-graphql's classes, as regapi's presenters make them:
 * type-graphql copies a parent that is not an instance of its class into a new one first.
 */
function asInstances(value: unknown, type: GraphQLOutputType): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => asInstances(item, type));
  const named = getNamedType(type);
  if (!isObjectType(named)) return value;
  const target = getMetadataStorage().objectTypes.find((object) => object.name === named.name)?.target;
  const instance = Object.create((target?.prototype as object | undefined) ?? Object.prototype) as Record<
    string,
    unknown
  >;
  const fields = named.getFields();
  for (const [key, member] of Object.entries(value)) {
    Object.defineProperty(instance, key, {
      value: asInstances(member, fields[key].type),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return instance;
}

async function apolloApp(answer: Answer): Promise<Express> {
  const plain = await buildGraphqlSchema();
  const root = rootOf(answer);
  resolversAnswerFrom(root, asInstances(answer.data[root], plain.getQueryType()!.getFields()[root].type));
  const schema = plain;
  // regapi answers a read summary's metaInfo without type-graphql's wrapper (schema-patches.ts).
  assertObjectType(schema.getType("User")).getFields().metaInfo.resolve = (user: Record<string, unknown>) =>
    user.metaInfo;
  const server = new ApolloServer({
    gateway: compiledExecutorGateway(schema, { compiled: true, compileOnFirstRun: false }),
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    includeStacktraceInErrorResponses: false,
    stopOnTerminationSignals: false,
    plugins: [ApolloServerPluginLandingPageDisabled(), ApolloServerPluginCacheControlDisabled()],
  });
  await server.start();
  const app = express();
  app.disable("x-powered-by");
  // What the authChecker and the registrant scope read of an API account's context.
  const context = async () => ({ request: { principal: { organizationId: 1 }, registrant: null } });
  app.use("/graphql", express.json(), expressMiddleware(server, { context }));
  return app;
}

async function jitApp(answer: Answer): Promise<Express> {
  const schema = buildSchema(printSchema(await buildGraphqlSchema()));
  const root = answer.data;
  const compiled = new Map<string, CompiledQuery>();
  const app = express();
  app.disable("x-powered-by");
  app.post("/graphql", express.json(), async (req, res) => {
    const { query, variables } = req.body as { query: string; variables?: Record<string, unknown> };
    let run = compiled.get(query);
    if (!run) {
      const made = compileQuery(schema, parse(query));
      if (!isCompiledQuery(made)) throw new Error("the query does not compile");
      compiled.set(query, (run = made));
    }
    const result = (await run.query(root, {}, variables ?? {})) as ExecutionResult;
    res.type("application/json; charset=utf-8").send(JSON.stringify(result) + "\n");
  });
  return app;
}

function expressApp(answer: Answer): Express {
  const body = answer;
  const app = express();
  app.disable("x-powered-by");
  app.post("/graphql", express.json(), (_req, res) => {
    res.type("application/json; charset=utf-8").send(JSON.stringify(body) + "\n");
  });
  return app;
}

async function main(side: FloorSide, answerJson: string): Promise<void> {
  const answer = JSON.parse(answerJson) as Answer;
  const app = side === "apollo" ? await apolloApp(answer) : side === "jit" ? await jitApp(answer) : expressApp(answer);
  // bench/side-server.ts samples its memory every 50 ms (about 0.5 ms of CPU each on a loaded
  // box): the floors do the same, so that a side's CPU per request holds the same overhead.
  setInterval(() => process.memoryUsage(), 50).unref();
  const server = createServer(app);
  server.listen(0, "127.0.0.1", () => {
    process.send?.({ type: "listening", port: (server.address() as AddressInfo).port });
  });
  process.on("disconnect", () => process.exit(0));
}

main(process.argv[2] as FloorSide, process.argv[3] ?? "").catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

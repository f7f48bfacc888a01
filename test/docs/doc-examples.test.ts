import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  buildSchema,
  Kind,
  print,
  validate,
  type DefinitionNode,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import { DEMO_CREDENTIALS } from "../../src/fixtures/demo";
import { builtService } from "../support/service-build";
import { compareJson, textMatches } from "./support/compare";
import { DocEnvironment, type CommandRun } from "./support/doc-environment";
import { stepsOf, type Answer, type Step } from "./support/markdown";

// Every shell, console, Python and GraphQL example of README.md and docs/*.md, run as written, in
// page order, against the demo server a user gets from `npm start` (one fresh server and working
// folder per page), with each shown answer compared (docs/testing.md, "Examples that run").
// A page added to docs/ is picked up by itself.

jest.setTimeout(120_000);

const ROOT = join(__dirname, "../..");
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];

const schema: GraphQLSchema = buildSchema(readFileSync(join(ROOT, "schema.graphql"), "utf8"));

const where = (step: Step, answer?: Answer) => `${step.block.page}:${answer ? answer.line : step.block.line}`;

function expectAnswer(step: Step, run: CommandRun): void {
  const { answer } = step;
  if (!answer) {
    expect({ at: where(step), code: run.code, stderr: run.stderr }).toEqual({
      at: where(step),
      code: 0,
      stderr: expect.any(String),
    });
    return;
  }
  if (answer.kind === "json") {
    let actual: unknown;
    try {
      actual = JSON.parse(run.stdout);
    } catch {
      throw new Error(`${where(step)} shows JSON; the command printed (exit ${run.code}):\n${run.stdout}${run.stderr}`);
    }
    expect({ at: where(step, answer), code: run.code }).toEqual({ at: where(step, answer), code: 0 });
    expect({ at: where(step, answer), differences: compareJson(actual, answer.value) }).toEqual({
      at: where(step, answer),
      differences: [],
    });
    return;
  }
  const output = `${run.stdout}${run.stderr}`;
  if (!textMatches(output, answer.text)) {
    // Shown as a diff of the two texts.
    expect({ at: where(step, answer), output: output.trimEnd() }).toEqual({
      at: where(step, answer),
      output: answer.text.trimEnd(),
    });
  }
}

/** The SDL a page shows must be the schema's: every type, field (with its type) and enum value. */
function expectSchemaHas(step: Step, definitions: readonly DefinitionNode[]): void {
  for (const definition of definitions) {
    if (!("name" in definition) || !definition.name) continue;
    const type = schema.getType(definition.name.value);
    expect({ at: where(step), type: definition.name.value, exists: type !== undefined }).toEqual({
      at: where(step),
      type: definition.name.value,
      exists: true,
    });
    if ("fields" in definition && definition.fields && type && "getFields" in type) {
      const fields = type.getFields();
      for (const field of definition.fields) {
        const actual = fields[field.name.value];
        expect({
          at: where(step),
          field: `${definition.name.value}.${field.name.value}`,
          type: actual?.type.toString(),
        }).toEqual({
          at: where(step),
          field: `${definition.name.value}.${field.name.value}`,
          type: print(field.type),
        });
      }
    }
    if ("values" in definition && definition.values && type && "getValues" in type) {
      const values = type.getValues().map((value) => value.name);
      for (const value of definition.values) expect(values).toContain(value.name.value);
    }
  }
}

const selectsMe = (operation: OperationDefinitionNode) =>
  operation.selectionSet.selections.some((selection) => selection.kind === Kind.FIELD && selection.name.value === "me");

async function runGraphql(env: DocEnvironment, step: Extract<Step, { kind: "graphql" }>): Promise<void> {
  const definitions = step.document.definitions;
  const executable = definitions.filter(
    (definition) => definition.kind === Kind.OPERATION_DEFINITION || definition.kind === Kind.FRAGMENT_DEFINITION,
  );
  if (executable.length < definitions.length) {
    expectSchemaHas(
      step,
      definitions.filter((definition) => !(executable as readonly DefinitionNode[]).includes(definition)),
    );
    return;
  }
  const fragments = executable.filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION);
  const operations = executable.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  if (step.answer && operations.length !== 1)
    throw new Error(`${where(step)}: an answer is shown for a block of ${operations.length} operations`);
  for (const operation of operations) {
    const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation, ...fragments] };
    const errors = validate(schema, document).map((error) => error.message);
    expect({ at: where(step), errors }).toEqual({ at: where(step), errors: [] });
    // A subscription needs a WebSocket and an event to answer: validation is its test.
    if (operation.operation === "subscription") continue;
    const declared = (operation.variableDefinitions ?? []).map((definition) => definition.variable.name.value);
    const variables = Object.fromEntries(
      Object.entries(step.variables ?? {}).filter(([name]) => declared.includes(name)),
    );
    const headers: Record<string, string> = selectsMe(operation)
      ? { Authorization: `Bearer ${await env.variable("SESSION_TOKEN")}` }
      : {
          "Api-Id": (await env.variable("API_ID")) ?? DEMO_CREDENTIALS.apiId,
          "Api-User": (await env.variable("API_USER")) ?? DEMO_CREDENTIALS.apiUser,
          "Api-Token": (await env.variable("API_TOKEN")) ?? DEMO_CREDENTIALS.apiToken,
        };
    // The page's own text when it is this one operation, so that error locations are the page's.
    const query = definitions.length === 1 ? step.block.body : print(document);
    const response = await env.graphql(query, variables, headers);
    if (step.answer?.kind === "json") {
      expect({ at: where(step, step.answer), differences: compareJson(response.body, step.answer.value) }).toEqual({
        at: where(step, step.answer),
        differences: [],
      });
    } else {
      expect({
        at: where(step),
        status: response.status,
        errors: (response.body as { errors?: unknown }).errors,
      }).toEqual({
        at: where(step),
        status: 200,
        errors: undefined,
      });
    }
  }
}

const pages = PAGES.map((page) => ({ page, steps: stepsOf(page, readFileSync(join(ROOT, page), "utf8")) }));

it("reads README.md and every page of docs/", () => {
  expect(PAGES.length).toBeGreaterThanOrEqual(15);
  expect(pages.reduce((count, page) => count + page.steps.length, 0)).toBeGreaterThanOrEqual(60);
  // The run's build exists (the global setup made it because this file asks for it).
  expect(builtService().mainJs).toMatch(/main\.js$/);
});

describe.each(pages.filter((page) => page.steps.length > 0))("$page", ({ steps }) => {
  let env: DocEnvironment;
  beforeAll(async () => {
    env = await DocEnvironment.start();
  });
  afterAll(async () => {
    await env?.stop();
  });

  it.each(steps.map((step) => [`${where(step)} ${step.kind}`, step] as const))("%s", async (_name, step) => {
    if (step.kind === "shell") expectAnswer(step, await env.shell(step.script));
    else if (step.kind === "python") expectAnswer(step, await env.python(step.script));
    else await runGraphql(env, step);
  });
});

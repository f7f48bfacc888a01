import { z } from "zod";
import { INTEGER_ID_JSON_SCHEMA } from "../../domain/commands/members";
import type { LegacyAction } from "../envelope/action-table";
import { refusedOutsideUpdate } from "../envelope/refused-members";

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) as plain data. */
export interface JsonSchema {
  [keyword: string]: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
}

/** The input side of a zod schema as JSON Schema: what a client may send, before transforms. */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return rest;
}

/** A member is required when its own schema refuses it absent: the same check the router runs. */
const refusesAbsent = (schema: z.ZodType) => !schema.safeParse(undefined).success;

/** Renames the properties of nested objects (list entries) to their wire names. */
function withWireNames(schema: JsonSchema, names: Record<string, string>): JsonSchema {
  const rename = (key: string) => (names[key] && !names[key].includes(".") ? names[key] : key);
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value !== "object" || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === "properties" && typeof inner === "object" && inner !== null) {
        out.properties = Object.fromEntries(
          Object.entries(inner).map(([name, member]) => [rename(name), walk(member)]),
        );
      } else if (key === "required" && Array.isArray(inner)) {
        out.required = inner.map((name) => rename(String(name)));
      } else {
        out[key] = walk(inner);
      }
    }
    return out;
  };
  return walk(schema) as JsonSchema;
}

function objectSchema(): JsonSchema & { properties: Record<string, JsonSchema>; required: string[] } {
  return { type: "object", properties: {}, required: [] };
}

/**
 * The wire request of one legacy action, from the two schemas the router checks it with: the
 * envelope schema (which top-level members exist, which are refused) and the domain command's
 * schema (each member's type), each command member placed at its wire path from `problemPaths`.
 * Members of actions whose command is read member by member appear by name without a type.
 */
export function actionRequestSchema(actionName: string, action: LegacyAction): JsonSchema {
  const root = objectSchema();
  root.properties.action = { const: actionName };
  root.properties.group_id = action.groupIdOptional
    ? { ...INTEGER_ID_JSON_SCHEMA, description: "One project (group); absent: every project of your organization." }
    : { ...INTEGER_ID_JSON_SCHEMA, description: "The project (group) the action works on." };
  root.required.push(...(action.groupIdOptional ? ["action"] : ["action", "group_id"]));

  const envelope = action.schema instanceof z.ZodObject ? (action.schema.shape as Record<string, z.ZodType>) : {};
  for (const [member, schema] of Object.entries(envelope)) {
    if (member === "group_id" || schema === refusedOutsideUpdate) continue;
    root.properties[member] = inputJsonSchema(schema);
    if (refusesAbsent(schema)) root.required.push(member);
  }

  let doc: ReturnType<typeof objectSchema> | null = null;
  let docRequired = false;
  const docSchema = () => {
    doc ??= objectSchema();
    return doc;
  };
  const place = (wirePath: string, schema: JsonSchema, required: boolean) => {
    const [head, ...rest] = wirePath.split(".");
    if (wirePath === "doc") {
      const target = docSchema();
      target.additionalProperties = (schema.additionalProperties as JsonSchema | undefined) ?? {};
      if (schema.description) target.description = schema.description;
      docRequired ||= required;
      return;
    }
    if (head === "doc" && rest.length === 1) {
      const target = docSchema();
      target.properties[rest[0]] = schema;
      if (required) target.required.push(rest[0]);
      return;
    }
    if (rest.length > 0) throw new Error(`no place for wire path ${wirePath} in the request of ${actionName}`);
    if (head === "group_id") return;
    root.properties[head] = schema;
    if (required && !root.required.includes(head)) root.required.push(head);
  };

  const names = action.problemPaths as Record<string, string>;
  if (action.command) {
    const shape = action.command.shape as Record<string, z.ZodType>;
    for (const [member, schema] of Object.entries(shape)) {
      place(names[member] ?? member, withWireNames(inputJsonSchema(schema), names), refusesAbsent(schema));
    }
  } else {
    for (const wirePath of Object.values(names)) {
      place(wirePath, { description: "Checked by the action's command; see the endpoint's description." }, false);
    }
  }

  if (doc) {
    const built: ReturnType<typeof objectSchema> = doc;
    if (built.required.length === 0) delete (built as JsonSchema).required;
    root.properties.doc = built;
    if ((built.required || docRequired) && !root.required.includes("doc")) root.required.push("doc");
  }
  return root;
}

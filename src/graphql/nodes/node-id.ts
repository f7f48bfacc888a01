import { validationFailed } from "../../domain/errors";

// Global object identification. A Node id is base64 of "<Type>:<key parts>"; the key parts are
// the owner keys the API already uses (group_id, clogin_id, legacy numeric ids, field
// identifiers), so an id is computed from the object alone (no read) and the same object has the
// same id in every response. Clients treat ids as opaque; the layout may change.

/** Every type that implements Node, with the key parts its id carries. */
export const NODE_KEYS = {
  User: ["groupId", "cloginId"],
  MetaInfo: ["groupId", "cloginId"],
  Utm: ["groupId", "cloginId"],
  UserForm: ["groupId", "cloginId", "formId"],
  FieldValue: ["groupId", "cloginId", "identifier"],
  CartLine: ["groupId", "cloginId", "cartLineId"],
  Payment: ["groupId", "cloginId", "paymentId"],
  EmailRecord: ["groupId", "cloginId", "emailId"],
  Project: ["groupId"],
  Form: ["groupId", "formId"],
  FormField: ["groupId", "identifier"],
  Status: ["groupId", "statusId"],
  Tag: ["groupId", "tagId"],
  Product: ["groupId", "pId"],
  ProductCategory: ["groupId", "catId"],
  // An endpoint belongs to an organization, not a project; its number is unique on its own.
  WebhookEndpoint: ["endpointId"],
  WebhookDelivery: ["endpointId", "deliveryId"],
} as const;

export type NodeTypeName = keyof typeof NODE_KEYS;

type KeyName<T extends NodeTypeName> = (typeof NODE_KEYS)[T][number];
type KeyValue<K extends string> = K extends "identifier" ? string : number;

/** The decoded key of a Node of type T, e.g. { groupId: 1, cloginId: 2 } for a User. */
export type NodeKey<T extends NodeTypeName> = { [K in KeyName<T>]: KeyValue<K> };

export type DecodedNodeId = { [T in NodeTypeName]: { type: T; key: NodeKey<T> } }[NodeTypeName];

const SEPARATOR = ":";
// Field identifiers are f_<form>_<n>; numbers are non-negative integers. Neither contains ":".
const IDENTIFIER = /^f_\d+_\d+$/;

export function encodeNodeId<T extends NodeTypeName>(type: T, key: NodeKey<T>): string {
  const parts = NODE_KEYS[type].map((name) => String((key as Record<string, string | number>)[name]));
  return Buffer.from([type, ...parts].join(SEPARATOR), "utf8").toString("base64");
}

function isNodeType(name: string): name is NodeTypeName {
  return Object.prototype.hasOwnProperty.call(NODE_KEYS, name);
}

/**
 * The type and key of an id this API issued. Anything else (not base64 of a known layout, or a
 * re-encoding that differs) is a VALIDATION_FAILED at `path`: such an id cannot name an object.
 */
export function decodeNodeId(id: string, path: (string | number)[] = ["id"]): DecodedNodeId {
  const [type, ...parts] = Buffer.from(id, "base64").toString("utf8").split(SEPARATOR);
  const names: readonly string[] | undefined = isNodeType(type) ? NODE_KEYS[type] : undefined;
  const invalid = () =>
    validationFailed([{ path, reason: "INVALID_ID", value: id, message: "is not a node id issued by this API" }]);
  if (!names || parts.length !== names.length) throw invalid();
  const key: Record<string, string | number> = {};
  names.forEach((name, index) => {
    const part = parts[index];
    if (name === "identifier") {
      if (!IDENTIFIER.test(part)) throw invalid();
      key[name] = part;
    } else {
      const value = Number(part);
      if (!/^\d{1,15}$/.test(part) || !Number.isSafeInteger(value)) throw invalid();
      key[name] = value;
    }
  });
  const decoded = { type, key } as DecodedNodeId;
  if (encodeNodeId(decoded.type, decoded.key as never) !== id) throw invalid();
  return decoded;
}

import { GraphQLDateTime } from "graphql-scalars";
import { Field, InputType, Int } from "type-graphql";
import { GraphqlObjectType } from "./object-type";
import { Node } from "../nodes/node.interface";
import { PageInfoType } from "./user-connection.type";
import { FieldProblemType, REFUSED_INPUT_NOTE, type Rejected } from "./payloads.type";

@GraphqlObjectType("WebhookEndpoint", { description: "A receiver of the organization's events.", implements: Node })
export class WebhookEndpointType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => Int, {
    description: "The endpoint's number: updateWebhookEndpoint, deleteWebhookEndpoint and webhookDeliveries take it.",
  })
  endpointId: number;

  @Field(() => String, { description: "Where deliveries are POSTed (https)." })
  url: string;

  @Field(() => [String], { description: "Event types the endpoint receives." })
  events: string[];

  @Field(() => [Int], { nullable: true, description: "Only these projects; null: every project of the organization." })
  groupIds: number[] | null;

  @Field(() => Boolean, { description: "False once switched off, by an update or by a 410 from the receiver." })
  active: boolean;

  @Field(() => String, { nullable: true, description: "Why the worker switched the endpoint off." })
  disabledReason: string | null;

  @Field(() => GraphQLDateTime, { description: "When the endpoint was created." })
  createdAt: Date;
}

@GraphqlObjectType("CreateWebhookEndpointPayload", { description: "The answer of createWebhookEndpoint." })
export class CreateWebhookEndpointPayloadType {
  static readonly rejected: Rejected<CreateWebhookEndpointPayloadType> = (problems) => ({
    endpoint: null,
    secret: null,
    problems,
  });

  @Field(() => WebhookEndpointType, {
    nullable: true,
    description: "The new endpoint; null when the input was refused.",
  })
  endpoint: WebhookEndpointType | null;

  @Field(() => String, {
    nullable: true,
    description: "The signing secret, shown only here: store it now. Null when the input was refused.",
  })
  secret: string | null;

  @Field(() => [FieldProblemType], { description: REFUSED_INPUT_NOTE })
  problems: FieldProblemType[];
}

@GraphqlObjectType("UpdateWebhookEndpointPayload", { description: "The answer of updateWebhookEndpoint." })
export class UpdateWebhookEndpointPayloadType {
  static readonly rejected: Rejected<UpdateWebhookEndpointPayloadType> = (problems) => ({ endpoint: null, problems });

  @Field(() => WebhookEndpointType, {
    nullable: true,
    description: "The endpoint after the change; null when the input was refused.",
  })
  endpoint: WebhookEndpointType | null;

  @Field(() => [FieldProblemType], { description: REFUSED_INPUT_NOTE })
  problems: FieldProblemType[];
}

@GraphqlObjectType("WebhookAttempt", { description: "One try of a delivery." })
export class WebhookAttemptType {
  @Field(() => GraphQLDateTime, { description: "When the attempt was made." })
  attemptedAt: Date;

  @Field(() => Int, { nullable: true, description: "The receiver's HTTP status; null when none came." })
  statusCode: number | null;

  @Field(() => Int, { description: "How long the attempt took, in milliseconds." })
  durationMs: number;

  @Field(() => String, {
    description: "Why the attempt failed, when it did; null for an accepted delivery.",
    nullable: true,
  })
  error: string | null;
}

@GraphqlObjectType("WebhookDelivery", {
  description: "One event to one endpoint, with every attempt.",
  implements: Node,
})
export class WebhookDeliveryType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => Int, { description: "The delivery's number within the delivery log." })
  deliveryId: number;

  @Field(() => Int, { description: "The endpoint it goes to." })
  endpointId: number;

  @Field(() => String, { description: "The event id (Regapi-Event-Id); redeliverWebhookEvent takes it." })
  eventId: string;

  @Field(() => String, { description: "The event's type (the webhook body's `type`)." })
  eventType: string;

  @Field(() => String, { description: "pending, delivered or failed." })
  state: string;

  @Field(() => Int, { description: "Attempts made so far." })
  attemptCount: number;

  @Field(() => GraphQLDateTime, { description: "When a pending delivery is tried next." })
  nextAttemptAt: Date;

  @Field(() => GraphQLDateTime, { description: "When the endpoint accepted it; null until then.", nullable: true })
  deliveredAt: Date | null;

  @Field(() => [WebhookAttemptType], { description: "The attempts made, oldest first." })
  attempts: WebhookAttemptType[];
}

@GraphqlObjectType("WebhookDeliveryEdge", { description: "One delivery of a page and its cursor." })
export class WebhookDeliveryEdgeType {
  @Field(() => String, { description: "Opaque; pass it as `after` for the deliveries older than this one." })
  cursor: string;

  @Field(() => WebhookDeliveryType, { description: "The delivery." })
  node: WebhookDeliveryType;
}

@GraphqlObjectType("WebhookDeliveryPage", {
  description: "A page of an endpoint's delivery log, newest first: a Relay connection (edges, pageInfo).",
})
export class WebhookDeliveryPageType {
  @Field(() => [WebhookDeliveryEdgeType], { description: "Newest first." })
  edges: WebhookDeliveryEdgeType[];

  @Field(() => PageInfoType, { description: "The cursors at both ends of the page." })
  pageInfo: PageInfoType;

  @Field(() => Int, { description: "How many deliveries the endpoint's log holds (every page the same)." })
  totalCount: number;

  @Field(() => [WebhookDeliveryType], {
    description: "Newest first.",
    deprecationReason: "Use edges { node }; removed in the next release.",
  })
  nodes: WebhookDeliveryType[];

  @Field(() => Boolean, {
    description: "Deprecated: pageInfo.hasNextPage.",
    deprecationReason: "Use pageInfo { hasNextPage }; removed in the next release.",
  })
  hasNextPage: boolean;

  @Field(() => String, {
    nullable: true,
    description: "Pass as `after` for the next page.",
    deprecationReason: "Use pageInfo { endCursor }; removed in the next release.",
  })
  endCursor: string | null;
}

@InputType("CreateWebhookEndpointInput", {
  description: "A webhook endpoint to create: where to send which events of which projects.",
})
export class CreateWebhookEndpointInput {
  @Field(() => String, { description: "http:// or https://; internal addresses are refused (WEBHOOK_ALLOW_PRIVATE)." })
  url: string;

  @Field(() => [String], { description: "Event types, e.g. user.created, form.submitted." })
  events: string[];

  @Field(() => [Int], { nullable: true, description: "Only these projects; absent or empty: every project." })
  groupIds?: number[] | null;
}

@InputType("UpdateWebhookEndpointInput", {
  description: "What to change on a webhook endpoint; absent members stay as they are.",
})
export class UpdateWebhookEndpointInput {
  @Field(() => Int, { description: "The endpoint to change (WebhookEndpoint.endpointId)." })
  endpointId: number;

  @Field(() => String, { description: "The new https URL; absent: unchanged.", nullable: true })
  url?: string;

  @Field(() => [String], {
    description: "The event types to send (replaces the list); absent: unchanged.",
    nullable: true,
  })
  events?: string[];

  @Field(() => [Int], { nullable: true, description: "null or empty: every project." })
  groupIds?: number[] | null;

  @Field(() => Boolean, { nullable: true, description: "true switches an endpoint (back) on." })
  active?: boolean;
}

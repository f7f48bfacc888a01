import { GraphQLDateTime, GraphQLJSONObject } from "graphql-scalars";
import { Field, Int } from "type-graphql";
import type { EventType } from "../../domain/events/record-event";
import { EventTypeEnum } from "./enums.type";
import { GraphqlObjectType } from "./object-type";

@GraphqlObjectType("FeedEvent", {
  description:
    "An event as webhooks deliver it (same id, type, time, project and data), with who caused it. Deduplicate feed and webhook by eventId.",
})
export class FeedEventType {
  @Field(() => String, { description: "The event's id: the UUID deliveries carry as `id` and Regapi-Event-Id." })
  eventId: string;

  @Field(() => EventTypeEnum, { description: "What changed; the webhook body's `type` behind the enum value." })
  type: EventType;

  @Field(() => GraphQLDateTime, { description: "When the change was made (the event's time, UTC)." })
  createdAt: Date;

  @Field(() => Int, { description: "The project (group_id)." })
  groupId: number;

  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description:
      'Who caused it: {"type": "api_account", "api_account_id", "admin_id" when named}, {"type": "registrant", "group_id", "clogin_id"} or {"type": "system"}; null for events recorded before actors were.',
  })
  actor: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { description: "The delivered body's `data`: wire names, ids as numbers." })
  data: Record<string, unknown>;
}

@GraphqlObjectType("FeedEventEdge", { description: "One event of a feed page and the cursor after it." })
export class FeedEventEdgeType {
  @Field(() => String, { description: "Continue after this event." })
  cursor: string;

  @Field(() => FeedEventType, { description: "The event." })
  node: FeedEventType;
}

@GraphqlObjectType("FeedPageInfo", { description: "Where a feed page ends and whether more events follow." })
export class FeedPageInfoType {
  @Field(() => Boolean, { description: "More events follow the page now." })
  hasNextPage: boolean;

  @Field(() => String, {
    description: "Always set: the last event's cursor, or the cursor given when the page is empty. Keep it.",
  })
  endCursor: string;
}

@GraphqlObjectType("FeedEventConnection", { description: "A page of the event feed, oldest first." })
export class FeedEventConnectionType {
  @Field(() => [FeedEventEdgeType], { description: "The page's events, oldest first." })
  edges: FeedEventEdgeType[];

  @Field(() => FeedPageInfoType, { description: "Where the page ends: keep endCursor." })
  pageInfo: FeedPageInfoType;
}

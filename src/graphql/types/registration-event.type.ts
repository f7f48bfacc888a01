import { GraphQLDateTime, GraphQLJSONObject } from "graphql-scalars";
import { Field, Int } from "type-graphql";
import type { EventType } from "../../domain/events/record-event";
import { EventTypeEnum } from "./enums.type";
import { GraphqlObjectType } from "./object-type";

@GraphqlObjectType("RegistrationEvent", {
  description:
    "A change to a registration, pushed to a subscription: the event webhooks deliver and the feed holds (same eventId, type, time, project and data), with the registration as it is now (`user`, selected like any User, so a normalized cache updates from it) and the feed cursor. A registrant session gets the actor's type only and data {clogin_id}.",
})
export class RegistrationEventType {
  @Field(() => String, { description: "The event's id: the UUID deliveries carry as `id` and Regapi-Event-Id." })
  eventId: string;

  @Field(() => EventTypeEnum, { description: "What changed; every type of EventType is delivered." })
  type: EventType;

  @Field(() => GraphQLDateTime, { description: "When the change was made (the event's time, UTC)." })
  createdAt: Date;

  @Field(() => Int, { description: "The project (group_id)." })
  groupId: number;

  @Field(() => Int, { description: "The registration (clogin_id)." })
  cloginId: number;

  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: "Who caused it, as in the event feed; null for events recorded before actors were.",
  })
  actor: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { description: "The delivered body's `data`: wire names, ids as numbers." })
  data: Record<string, unknown>;

  @Field(() => String, {
    description:
      "The event feed's cursor after this event: after a disconnect, read events(after: cursor) to catch up on what was missed.",
  })
  cursor: string;
}

import type { GraphQLResolveInfo } from "graphql";
import {
  Arg,
  Authorized,
  Ctx,
  FieldResolver,
  Info,
  Int,
  Resolver,
  Root,
  Subscription,
  type SubscribeResolverData,
} from "type-graphql";
import { DomainError } from "../../domain/errors";
import { openRegistrationChanges, openUserChanges, type LiveEvent } from "../../domain/events/live-events";
import { readOwnRegistration } from "../../domain/sessions/registrant-sessions";
import type { GraphqlContext } from "../context";
import { SUBSCRIPTIONS_OVER_HTTP_MESSAGE } from "../subscriptions/subscriptions-over-http.plugin";
import { RegistrationEventType } from "../types/registration-event.type";
import { UserType } from "../types/user.type";
import { userFromOutcome } from "./present";
import { readUserForSelection } from "./user-read";

// Subscriptions (docs/graphql-clients.md#live-updates). `subscribe` makes the one domain call
// that decides who may receive what, then hands the filter to the connection's live events
// (src/graphql/subscriptions/websocket-server.ts); each event then resolves to itself, and its
// `user` to the registration as the subscriber may read it now.

type SubscribeData = SubscribeResolverData<unknown, Record<string, unknown>, GraphqlContext>;

function liveOf(context: GraphqlContext): NonNullable<GraphqlContext["live"]> {
  if (!context.live) {
    // Refused earlier over HTTP (subscriptions-over-http.plugin.ts); kept for any other executor.
    throw new DomainError("VALIDATION_FAILED", SUBSCRIPTIONS_OVER_HTTP_MESSAGE);
  }
  return context.live;
}

/**
 * Each event of a subscription is executed with the subscription's one context: its loaders
 * would answer the next event with what they read for the last one, so every event starts
 * with empty ones.
 */
function freshEvent(event: LiveEvent, context: GraphqlContext): LiveEvent {
  context.loaders.clearAll();
  return event;
}

@Resolver(() => RegistrationEventType)
export class LiveEventsResolver {
  @Authorized("account")
  @Subscription(() => RegistrationEventType, {
    description:
      "Changes to the project's registrations as they commit, on any instance: every EventType (values, forms, cart, status, emails, creation and erasure; whatever users(filter: {updatedSince}) reports). API accounts whose key reads the project.",
    subscribe: async ({ args, context }: SubscribeData) => {
      const live = liveOf(context);
      const filter = await openRegistrationChanges(context.request, { groupId: args.groupId });
      return live.open(filter);
    },
  })
  registrationChanged(
    @Root() event: LiveEvent,
    @Ctx() context: GraphqlContext,
    @Arg("groupId", () => Int, { description: "The project (group_id)." }) _groupId: number,
  ): RegistrationEventType {
    return freshEvent(event, context);
  }

  @Authorized("account", "registrant")
  @Subscription(() => RegistrationEventType, {
    description:
      "Changes to one registration as they commit (the event types of registrationChanged). An API account as user(groupId, cloginId) reads it; a registrant session for its own registration only.",
    subscribe: async ({ args, context }: SubscribeData) => {
      const live = liveOf(context);
      const filter = await openUserChanges(context.request, { groupId: args.groupId, cloginId: args.cloginId });
      return live.open(filter);
    },
  })
  userChanged(
    @Root() event: LiveEvent,
    @Ctx() context: GraphqlContext,
    @Arg("groupId", () => Int, { description: "The project (group_id)." }) _groupId: number,
    @Arg("cloginId", () => Int, { description: "The registration (clogin_id)." }) _cloginId: number,
  ): RegistrationEventType {
    return freshEvent(event, context);
  }

  /**
   * The registration after the change, read when the event is sent, in the one statement of
   * `user(groupId, cloginId)` (or `me` for a registrant session); null once it is gone.
   */
  @FieldResolver(() => UserType, {
    nullable: true,
    description:
      "The registration as it is when the event is sent (at least as new as the change), with the fields the subscription selects: an API account reads it as user(groupId, cloginId), a registrant session as me. Normalized caches (Apollo Client, urql graphcache) update their queries of this user from it (after PERSON_ERASED: the erased values, nulls). Null when the registration no longer exists.",
  })
  async user(
    @Root() event: LiveEvent,
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<UserType | null> {
    try {
      if (ctx.request.registrant) {
        const outcome = await readOwnRegistration(ctx.request);
        ctx.loaders.primeSummary(outcome.summary);
        return userFromOutcome(outcome);
      }
      return await readUserForSelection(ctx, event.groupId, event.cloginId, info);
    } catch (error) {
      if (error instanceof DomainError && error.code === "USER_NOT_FOUND") return null;
      throw error;
    }
  }
}

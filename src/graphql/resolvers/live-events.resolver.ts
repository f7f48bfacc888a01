import { Arg, Authorized, Int, Resolver, Root, Subscription, type SubscribeResolverData } from "type-graphql";
import { DomainError } from "../../domain/errors";
import { openRegistrationChanges, openUserChanges, type LiveEvent } from "../../domain/events/live-events";
import type { GraphqlContext } from "../context";
import { SUBSCRIPTIONS_OVER_HTTP_MESSAGE } from "../subscriptions/subscriptions-over-http.plugin";
import { RegistrationEventType } from "../types/registration-event.type";

// Subscriptions (docs/graphql-clients.md#live-updates). `subscribe` makes the one domain call
// that decides who may receive what, then hands the filter to the connection's live events
// (src/graphql/subscriptions/websocket-server.ts); each event then resolves to itself.

type SubscribeData = SubscribeResolverData<unknown, Record<string, unknown>, GraphqlContext>;

function liveOf(context: GraphqlContext): NonNullable<GraphqlContext["live"]> {
  if (!context.live) {
    // Refused earlier over HTTP (subscriptions-over-http.plugin.ts); kept for any other executor.
    throw new DomainError("VALIDATION_FAILED", SUBSCRIPTIONS_OVER_HTTP_MESSAGE);
  }
  return context.live;
}

@Resolver()
export class LiveEventsResolver {
  @Authorized("account")
  @Subscription(() => RegistrationEventType, {
    description:
      "Changes to the project's registrations as they commit, on any instance: user.created, user.updated, user.status_changed, form.submitted, form.completed, cart.product_added. API accounts whose key reads the project.",
    subscribe: async ({ args, context }: SubscribeData) => {
      const live = liveOf(context);
      const filter = await openRegistrationChanges(context.request, { groupId: args.groupId });
      return live.open(filter);
    },
  })
  registrationChanged(@Root() event: LiveEvent, @Arg("groupId", () => Int) _groupId: number): RegistrationEventType {
    return event;
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
    @Arg("groupId", () => Int) _groupId: number,
    @Arg("cloginId", () => Int) _cloginId: number,
  ): RegistrationEventType {
    return event;
  }
}

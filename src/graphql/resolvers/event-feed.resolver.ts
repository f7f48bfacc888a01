import { Arg, Authorized, Ctx, Int, Query, Resolver, UseMiddleware } from "type-graphql";
import { FEED_PAGE_DEFAULT, FEED_PAGE_MAX, listEvents } from "../../domain/events/event-feed";
import type { GraphqlContext } from "../context";
import { problemPathsOf } from "../graphql-errors";
import type { EventType } from "../../domain/events/record-event";
import { EventTypeEnum } from "../types/enums.type";
import { FeedEventConnectionType } from "../types/event-feed.type";

@Resolver()
export class EventFeedResolver {
  // An organization's feed: for API accounts; a registrant session has no feed (not built).
  @Authorized("account")
  @Query(() => FeedEventConnectionType, {
    description: `The pull event feed: the organization's events (or one project's), oldest first, after a cursor. An expired cursor (older than the retention) is CURSOR_EXPIRED: resync. first: 1 to ${FEED_PAGE_MAX}, default ${FEED_PAGE_DEFAULT}.`,
  })
  // The domain command calls the page size `limit` (REST doc.limit); here it is `first`.
  @UseMiddleware(problemPathsOf({ names: { limit: "first" } }))
  async events(
    @Ctx() ctx: GraphqlContext,
    @Arg("after", () => String, {
      description: "A cursor from a previous page (an endCursor); absent: the oldest event kept.",
      nullable: true,
    })
    after: string | null,
    @Arg("first", () => Int, { description: "Events per page.", nullable: true }) first: number | null,
    @Arg("types", () => [EventTypeEnum], { nullable: true, description: "Only these event types; absent: all." })
    types: EventType[] | null,
    @Arg("groupId", () => Int, {
      description: "One project of the organization; absent: every project the key reads.",
      nullable: true,
    })
    groupId: number | null,
  ): Promise<FeedEventConnectionType> {
    const page = await listEvents(ctx.request, { after, limit: first, types, groupId });
    return {
      edges: page.events.map((event) => ({
        cursor: event.cursor,
        node: {
          eventId: event.id,
          type: event.type,
          createdAt: new Date(event.created_at),
          groupId: event.group_id,
          actor: event.actor,
          data: event.data,
        },
      })),
      pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor },
    };
  }
}

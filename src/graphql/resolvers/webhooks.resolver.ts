import type { GraphQLResolveInfo } from "graphql";
import { Arg, Ctx, Extensions, Info, Int, Mutation, Query, Resolver, UseMiddleware, Authorized } from "type-graphql";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  DEFAULT_DELIVERIES_PAGE,
  listWebhookDeliveries,
  listWebhookEndpoints,
  redeliverWebhookEvent,
  MAX_DELIVERIES_PAGE,
  updateWebhookEndpoint,
} from "../../domain/webhooks/webhooks.service";
import { validationFailed } from "../../domain/errors";
import type { GraphqlContext } from "../context";
import { HOLDS_CREDENTIAL } from "../credential-answers";
import { INPUT_PATHS } from "../graphql-errors";
import { problemsInPayload } from "../input-problems";
import { presentWebhookDelivery, presentWebhookEndpoint } from "./present";
import { selectsField } from "../selection";
import {
  CreateWebhookEndpointInput,
  CreateWebhookEndpointPayloadType,
  UpdateWebhookEndpointPayloadType,
  UpdateWebhookEndpointInput,
  WebhookDeliveryPageType,
  WebhookEndpointType,
} from "../types/webhook.type";

// Opaque to clients; inside, the delivery id the page continues after.
const CURSOR_PREFIX = "delivery:";
const deliveryCursor = (id: number) => Buffer.from(`${CURSOR_PREFIX}${id}`, "utf8").toString("base64");
function afterDelivery(cursor: string | null | undefined, path = "after"): number | null {
  if (cursor == null) return null;
  const text = Buffer.from(cursor, "base64").toString("utf8");
  const id = text.startsWith(CURSOR_PREFIX) ? Number(text.slice(CURSOR_PREFIX.length)) : NaN;
  if (!Number.isSafeInteger(id) || deliveryCursor(id) !== cursor)
    throw validationFailed([{ path: [path], reason: "INVALID_ID", message: "is not a cursor returned by this API" }]);
  return id;
}

@Resolver()
export class WebhooksResolver {
  @Authorized("account")
  @Query(() => [WebhookEndpointType], { description: "The organization's webhook endpoints (never their secrets)." })
  async webhookEndpoints(@Ctx() ctx: GraphqlContext): Promise<WebhookEndpointType[]> {
    return (await listWebhookEndpoints(ctx.request)).map(presentWebhookEndpoint);
  }

  @Authorized("account")
  @Query(() => WebhookDeliveryPageType, {
    description: "An endpoint's delivery log, newest first, with every attempt.",
  })
  async webhookDeliveries(
    @Arg("endpointId", () => Int, { description: "The endpoint (its endpointId)." }) endpointId: number,
    @Arg("first", () => Int, {
      description: `Forward page size, 1 to ${MAX_DELIVERIES_PAGE}; ${DEFAULT_DELIVERIES_PAGE} when neither first nor last is given.`,
      nullable: true,
    })
    first: number | null,
    @Arg("after", () => String, { description: "A cursor from a previous page (an endCursor).", nullable: true })
    after: string | null,
    @Arg("last", () => Int, {
      description: `Backward page size, 1 to ${MAX_DELIVERIES_PAGE}: the deliveries just before \`before\` (newer), or the oldest.`,
      nullable: true,
    })
    last: number | null,
    @Arg("before", () => String, { description: "A cursor (a startCursor): the deliveries before it.", nullable: true })
    before: string | null,
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<WebhookDeliveryPageType> {
    const page = await listWebhookDeliveries(ctx.request, {
      endpointId,
      first,
      afterId: afterDelivery(after),
      last,
      beforeId: afterDelivery(before, "before"),
      withTotal: selectsField(info, "totalCount"),
    });
    const edges = page.deliveries.map((delivery) => ({
      cursor: deliveryCursor(delivery.id),
      node: presentWebhookDelivery(delivery),
    }));
    const endCursor = edges.at(-1)?.cursor ?? null;
    // Past a cursor there are deliveries beyond it; toward the page's far end, what the read saw.
    const hasNextPage = page.backward ? before != null : page.hasMore;
    return {
      edges,
      pageInfo: {
        hasNextPage,
        hasPreviousPage: page.backward ? page.hasMore : after != null,
        startCursor: edges[0]?.cursor ?? null,
        endCursor,
      },
      totalCount: page.totalCount ?? 0,
      nodes: edges.map((edge) => edge.node),
      hasNextPage,
      endCursor,
    };
  }

  @Authorized("account")
  @Mutation(() => CreateWebhookEndpointPayloadType, {
    description:
      "Registers an endpoint; the payload's secret is shown only this once (so Idempotency-Key is refused here).",
  })
  // The signing secret is kept only where it signs: this answer is never stored for a replay.
  @Extensions(HOLDS_CREDENTIAL)
  @UseMiddleware(problemsInPayload(INPUT_PATHS, CreateWebhookEndpointPayloadType.rejected))
  async createWebhookEndpoint(
    @Arg("input", () => CreateWebhookEndpointInput, { description: "The endpoint to create." })
    input: CreateWebhookEndpointInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<CreateWebhookEndpointPayloadType> {
    const created = await createWebhookEndpoint(ctx.request, {
      url: input.url,
      events: input.events,
      groupIds: input.groupIds,
    });
    return { endpoint: presentWebhookEndpoint(created.endpoint), secret: created.secret, problems: [] };
  }

  @Authorized("account")
  @Mutation(() => UpdateWebhookEndpointPayloadType, {
    description: "Changes an endpoint's URL, events, projects or active flag.",
  })
  @UseMiddleware(problemsInPayload(INPUT_PATHS, UpdateWebhookEndpointPayloadType.rejected))
  async updateWebhookEndpoint(
    @Arg("input", () => UpdateWebhookEndpointInput, { description: "The endpoint and what to change." })
    input: UpdateWebhookEndpointInput,
    @Ctx() ctx: GraphqlContext,
  ): Promise<UpdateWebhookEndpointPayloadType> {
    const draft: Parameters<typeof updateWebhookEndpoint>[1] = { endpointId: input.endpointId };
    if (input.url != null) draft.url = input.url;
    if (input.events != null) draft.events = input.events;
    if (input.groupIds !== undefined) draft.groupIds = input.groupIds;
    if (input.active != null) draft.active = input.active;
    return { endpoint: presentWebhookEndpoint(await updateWebhookEndpoint(ctx.request, draft)), problems: [] };
  }

  @Authorized("account")
  @Mutation(() => Int, { description: "Deletes an endpoint and its delivery log; returns its endpointId." })
  async deleteWebhookEndpoint(
    @Arg("endpointId", () => Int, { description: "The endpoint (its endpointId)." }) endpointId: number,
    @Ctx() ctx: GraphqlContext,
  ): Promise<number> {
    return deleteWebhookEndpoint(ctx.request, endpointId);
  }

  @Authorized("account")
  @Mutation(() => Int, {
    description: "Queues every delivery of the event again (a failed one too); returns how many were queued.",
  })
  async redeliverWebhookEvent(
    @Arg("eventId", () => String, { description: "The event (its eventId) to send again to the endpoints it was for." })
    eventId: string,
    @Ctx() ctx: GraphqlContext,
  ): Promise<number> {
    return redeliverWebhookEvent(ctx.request, eventId);
  }
}

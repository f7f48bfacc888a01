import { randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { z } from "zod";
import {
  deleteWebhookEndpointRow,
  insertWebhookEndpoint,
  countWebhookDeliveries,
  readWebhookDeliveries,
  readWebhookDelivery,
  readWebhookEndpoints,
  requeueEventDeliveries,
  updateWebhookEndpointRow,
  type WebhookDeliveryRecord,
  type WebhookEndpointRecord,
} from "../../data/webhooks.data";
import { readProjectsOfOrganization } from "../../data/projects.data";
import { isInternalAddress } from "../../common/network-address";
import { requirePrincipal, type RequestContext } from "../context";
import { authorize } from "../authorize";
import { integerId } from "../commands/members";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import { DomainError, validationFailed, type Problem } from "../errors";
import { EVENT_TYPES } from "../events/record-event";
import { inTransaction } from "../transaction";

// Webhook endpoints (contract §16, §18) belong to the caller's organization. The signing secret is
// made here, stored in clear (every delivery is signed with it) and returned once, at creation.

const webhookUrl = z
  .string({ error: "must be a string" })
  .trim()
  .min(1, "must not be empty")
  .max(2000, "must be at most 2000 characters")
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "" && url.username === "";
      } catch {
        return false;
      }
    },
    { message: "must be an http:// or https:// URL without credentials", params: { reason: "INVALID_FORMAT" } },
  );

const eventList = z
  .array(z.enum(EVENT_TYPES, { error: `must be one of ${EVENT_TYPES.join(", ")}` }), { error: "must be a list" })
  .min(1, "must name at least one event type")
  .transform((events) => [...new Set(events)]);

const groupIdList = z
  .array(integerId, { error: "must be a list of project ids" })
  .nullable()
  .optional()
  .transform((ids) => (ids == null || ids.length === 0 ? null : [...new Set(ids)]));

export const CreateWebhookEndpointCommand = z.object({ url: webhookUrl, events: eventList, groupIds: groupIdList });
export const UpdateWebhookEndpointCommand = z.object({
  endpointId: integerId,
  url: webhookUrl.optional(),
  events: eventList.optional(),
  groupIds: groupIdList,
  active: z.boolean({ error: "must be true or false" }).optional(),
});

export interface CreatedWebhookEndpoint {
  endpoint: WebhookEndpointRecord;
  /** Shown once: the API never returns it again. */
  secret: string;
}

/**
 * Refuses URLs whose host resolves to an internal address (SSRF), unless allowed
 * (WEBHOOK_ALLOW_PRIVATE). The worker checks the address again when it connects (DNS rebinding).
 */
async function assertPublicUrl(ctx: RequestContext, url: string): Promise<void> {
  if (ctx.settings?.webhookAllowPrivate) return;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    throw validationFailed([
      { path: ["url"], reason: "NOT_AVAILABLE", value: url, message: `names a host that does not resolve: ${host}` },
    ]);
  }
  if (addresses.some(isInternalAddress))
    throw validationFailed([
      {
        path: ["url"],
        reason: "NOT_ALLOWED",
        value: url,
        message: `resolves to a loopback, private or link-local address (${host}); such URLs are refused unless WEBHOOK_ALLOW_PRIVATE=true`,
      },
    ]);
}

async function assertOwnProjects(ctx: RequestContext, groupIds: number[] | null | undefined): Promise<void> {
  if (!groupIds) return;
  const projects = await readProjectsOfOrganization(ctx.em, requirePrincipal(ctx).organizationId, "all");
  const own = new Set(projects.map((project) => project.id));
  const foreign = groupIds.filter((id) => !own.has(id));
  if (foreign.length > 0)
    throw validationFailed([
      {
        path: ["groupIds"],
        reason: "NOT_AVAILABLE",
        message: `names projects that are not your organization's: ${foreign.join(", ")}`,
      },
    ]);
}

async function requireEndpoint(ctx: RequestContext, id: number): Promise<WebhookEndpointRecord> {
  const [endpoint] = await readWebhookEndpoints(ctx.em, requirePrincipal(ctx).organizationId, id);
  if (!endpoint) throw new DomainError("NOT_FOUND", `Webhook endpoint ${id} is not an endpoint of your organization.`);
  return endpoint;
}

export async function createWebhookEndpoint(
  ctx: RequestContext,
  draft: CommandDraft<typeof CreateWebhookEndpointCommand>,
): Promise<CreatedWebhookEndpoint> {
  const cmd = parseCommand(CreateWebhookEndpointCommand, draft);
  const organizationId = authorize(ctx, "webhooks", "organization").organizationId;
  await assertPublicUrl(ctx, cmd.url);
  const secret = `whsec_${randomBytes(24).toString("base64url")}`;
  return inTransaction(ctx, "webhooks.create", async (tx) => {
    await assertOwnProjects(tx, cmd.groupIds);
    const id = await insertWebhookEndpoint(tx.em, { organizationId, secret, ...cmd }, new Date());
    return { endpoint: await requireEndpoint(tx, id), secret };
  });
}

export async function updateWebhookEndpoint(
  ctx: RequestContext,
  draft: CommandDraft<typeof UpdateWebhookEndpointCommand>,
): Promise<WebhookEndpointRecord> {
  const cmd = parseCommand(UpdateWebhookEndpointCommand, draft);
  authorize(ctx, "webhooks", "organization");
  if (cmd.url !== undefined) await assertPublicUrl(ctx, cmd.url);
  return inTransaction(ctx, "webhooks.update", async (tx) => {
    await requireEndpoint(tx, cmd.endpointId);
    await assertOwnProjects(tx, cmd.groupIds);
    await updateWebhookEndpointRow(tx.em, cmd.endpointId, {
      url: cmd.url,
      events: cmd.events,
      groupIds: "groupIds" in draft ? cmd.groupIds : undefined,
      active: cmd.active,
    });
    return requireEndpoint(tx, cmd.endpointId);
  });
}

export async function deleteWebhookEndpoint(ctx: RequestContext, endpointId: unknown): Promise<number> {
  const cmd = parseCommand(z.object({ endpointId: integerId }), { endpointId });
  authorize(ctx, "webhooks", "organization");
  return inTransaction(ctx, "webhooks.delete", async (tx) => {
    await requireEndpoint(tx, cmd.endpointId);
    await deleteWebhookEndpointRow(tx.em, cmd.endpointId);
    return cmd.endpointId;
  });
}

/** One endpoint of the caller's organization; another organization's (or none) is NOT_FOUND. */
export async function getWebhookEndpoint(ctx: RequestContext, endpointId: number): Promise<WebhookEndpointRecord> {
  authorize(ctx, "read", "organization");
  return requireEndpoint(ctx, endpointId);
}

/** One delivery of an endpoint of the caller's organization, with its attempts; anything else is NOT_FOUND. */
export async function getWebhookDelivery(
  ctx: RequestContext,
  key: { endpointId: number; deliveryId: number },
): Promise<WebhookDeliveryRecord> {
  authorize(ctx, "read", "organization");
  await requireEndpoint(ctx, key.endpointId);
  const delivery = await readWebhookDelivery(ctx.em, key.endpointId, key.deliveryId);
  if (!delivery)
    throw new DomainError(
      "NOT_FOUND",
      `Delivery ${key.deliveryId} is not a delivery of webhook endpoint ${key.endpointId}.`,
    );
  return delivery;
}

export async function listWebhookEndpoints(ctx: RequestContext): Promise<WebhookEndpointRecord[]> {
  return readWebhookEndpoints(ctx.em, authorize(ctx, "read", "organization").organizationId);
}

export const MAX_DELIVERIES_PAGE = 100;
export const DEFAULT_DELIVERIES_PAGE = 20;

/**
 * A page of an endpoint's delivery log, newest first: forward, the `first` after delivery
 * `afterId` (older ones); backward (`last`), the `last` deliveries just newer than `beforeId`,
 * or the oldest `last` of the log. `withTotal` adds the log's size (one more statement).
 */
export async function listWebhookDeliveries(
  ctx: RequestContext,
  query: {
    endpointId: unknown;
    first: number | null;
    afterId: number | null;
    last?: number | null;
    beforeId?: number | null;
    withTotal?: boolean;
  },
): Promise<{ deliveries: WebhookDeliveryRecord[]; hasMore: boolean; backward: boolean; totalCount: number | null }> {
  const { endpointId } = parseCommand(z.object({ endpointId: integerId }), { endpointId: query.endpointId });
  const sizeProblem = (member: "first" | "last", size: number | null | undefined) =>
    size != null && (!Number.isInteger(size) || size < 1 || size > MAX_DELIVERIES_PAGE)
      ? [
          {
            path: [member],
            reason: "OUT_OF_RANGE" as const,
            message: `must be an integer from 1 to ${MAX_DELIVERIES_PAGE}`,
          },
        ]
      : [];
  const problems: Problem[] = [...sizeProblem("first", query.first), ...sizeProblem("last", query.last)];
  if (query.first != null && query.last != null)
    problems.push({
      path: ["last"],
      reason: "CONFLICTING_MEMBERS",
      message: "and first page in opposite directions; give one",
    });
  if (problems.length > 0) throw validationFailed(problems);
  authorize(ctx, "read", "organization");
  await requireEndpoint(ctx, endpointId);
  const backward = query.last != null || (query.beforeId != null && query.first == null);
  const size = (backward ? query.last : query.first) ?? DEFAULT_DELIVERIES_PAGE;
  const rows = await readWebhookDeliveries(
    ctx.em,
    endpointId,
    size + 1,
    query.afterId,
    backward ? { beforeId: query.beforeId ?? null } : null,
  );
  // Backward, the extra row is the oldest (first read, last of the newest-first list).
  const deliveries = backward ? rows.slice(Math.max(0, rows.length - size)) : rows.slice(0, size);
  const totalCount = query.withTotal ? await countWebhookDeliveries(ctx.em, endpointId) : null;
  return { deliveries, hasMore: rows.length > size, backward, totalCount };
}

/** Queues every delivery of the event again (a failed one too). Returns how many were queued. */
export async function redeliverWebhookEvent(ctx: RequestContext, eventId: unknown): Promise<number> {
  const { id } = parseCommand(z.object({ id: z.string({ error: "must be an event id" }).trim().min(1) }), {
    id: eventId,
  });
  const organizationId = authorize(ctx, "webhooks", "organization").organizationId;
  return inTransaction(ctx, "webhooks.redeliver", async ({ em }) => {
    const result = await requeueEventDeliveries(em, organizationId, id, new Date());
    if (!result.found) throw new DomainError("NOT_FOUND", `Event ${id} is not an event of your organization.`);
    return result.requeued;
  });
}

import type { Command } from "commander";
import { createWebhookEndpoint, listWebhookEndpoints } from "../../domain/webhooks/webhooks.service";
import { writeLine } from "../cli-io";
import { formatTable, positiveInteger, operatorContext, type CliSession, examples } from "../cli-session";

const list = (value: string) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

export function registerWebhookCommand(program: Command, session: CliSession): void {
  const webhook = program
    .command("webhook")
    .description("Manage an organization's webhook endpoints (also possible through GraphQL). Secrets are shown once.")
    .summary("manage webhook endpoints (add, list)")
    .addHelpText(
      "after",
      examples(
        "npx regapi webhook add --org 1 --url https://hooks.example.com/regapi --events user.created,form.submitted",
        "npx regapi webhook list --org 1",
      ),
    );
  registerWebhookAdd(webhook, session);
  registerWebhookList(webhook, session);
}

const context = (session: CliSession, requestId: string, organizationId: number) =>
  operatorContext(session, requestId, organizationId);

/** `webhook add`: registers an endpoint; its signing secret is printed here and never again. */
function registerWebhookAdd(webhook: Command, session: CliSession): void {
  webhook
    .command("add")
    .summary("register an endpoint and print its id and signing secret once")
    .addHelpText(
      "after",
      examples(
        "npx regapi webhook add --org 1 --url https://hooks.example.com/regapi --events user.created,form.submitted",
        "npx regapi webhook add --org 1 --url https://hooks.example.com/camp --events user.updated --groups 100909072",
      ),
    )
    .description("Register a webhook endpoint for an organization; prints its id and its signing secret (shown once).")
    .requiredOption("--org <id>", "organization id (see regapi org list)", positiveInteger())
    .requiredOption("--url <url>", "where events are POSTed (http:// or https://)")
    .requiredOption("--events <a,b>", "event types, comma-separated (e.g. user.created,form.submitted)")
    .option("--groups <ids>", "only these project ids, comma-separated (default: every project)")
    .action(async (options: { org: number; url: string; events: string; groups?: string }) => {
      const created = await createWebhookEndpoint(await context(session, "cli-webhook-add", options.org), {
        url: options.url,
        events: list(options.events),
        groupIds: options.groups === undefined ? null : list(options.groups),
      });
      const { stdout } = session.io;
      writeLine(stdout, `id: ${created.endpoint.id}`);
      writeLine(stdout, `secret: ${created.secret}`);
      writeLine(stdout, "store the secret now: it is not shown again");
    });
}

/** `webhook list`: an organization's endpoints as a table, without their secrets. */
function registerWebhookList(webhook: Command, session: CliSession): void {
  webhook
    .command("list")
    .summary("list an organization's webhook endpoints (never their secrets)")
    .addHelpText("after", examples("npx regapi webhook list --org 1"))
    .description("List the webhook endpoints of an organization: id, URL, events, projects, active.")
    .requiredOption("--org <id>", "organization id (see regapi org list)", positiveInteger())
    .action(async (options: { org: number }) => {
      const endpoints = await listWebhookEndpoints(await context(session, "cli-webhook-list", options.org));
      const { stdout } = session.io;
      if (endpoints.length === 0) {
        writeLine(stdout, `organization ${options.org} has no webhook endpoints; add one with regapi webhook add`);
        return;
      }
      const rows = endpoints.map((endpoint) => [
        String(endpoint.id),
        endpoint.url,
        endpoint.events.join(","),
        endpoint.groupIds === null ? "all" : endpoint.groupIds.join(","),
        endpoint.active ? "yes" : `no (${endpoint.disabledReason ?? "switched off"})`,
      ]);
      for (const line of formatTable(["id", "url", "events", "projects", "active"], rows)) writeLine(stdout, line);
    });
}

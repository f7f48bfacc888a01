import { createHmac } from "node:crypto";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { isInternalAddress } from "../common/network-address";

/** `Regapi-Signature`: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (contract §16). */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const digest = createHmac("sha256", secret).update(`${unixSeconds}.${body}`, "utf8").digest("hex");
  return `t=${unixSeconds},v1=${digest}`;
}

export interface WebhookRequest {
  url: string;
  body: string;
  secret: string;
  eventId: string;
  timeoutMs: number;
  allowPrivate: boolean;
}

export interface WebhookResponse {
  /** Null when no answer came (refused address, connection error, timeout). */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

const refusedAddress = (address: string) =>
  Object.assign(
    new Error(`refused: resolves to an internal address (${address}); WEBHOOK_ALLOW_PRIVATE=true allows it`),
    { code: "EREFUSEDADDRESS" },
  );

/**
 * The address is checked when the connection is made, not only when the URL was registered: a
 * name that resolved to a public address then may resolve to an internal one now (DNS rebinding).
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, "", 4);
    const internal = addresses.find((entry) => isInternalAddress(entry.address));
    if (internal) return callback(refusedAddress(internal.address), "", 4);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};

/** POSTs one signed event; resolves with what happened (never rejects). */
export function postWebhook(request: WebhookRequest): Promise<WebhookResponse> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null): WebhookResponse => ({
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return Promise.resolve(done(null, "invalid URL"));
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!request.allowPrivate && isIP(host) && isInternalAddress(host))
    return Promise.resolve(done(null, refusedAddress(host).message));
  const signature = signatureHeader(request.secret, request.body, Math.floor(Date.now() / 1000));
  return new Promise((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(statusCode, error));
    };
    const client = url.protocol === "https:" ? https : http;
    const req = client.request(
      url,
      {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "Content-Length": Buffer.byteLength(request.body),
          "User-Agent": "regapi-webhooks/1",
          "Regapi-Event-Id": request.eventId,
          "Regapi-Signature": signature,
        },
        lookup: request.allowPrivate ? undefined : guardedLookup,
        agent: false,
      },
      (res) => {
        // The answer's body is not needed; read it (bounded by the timeout) so the socket closes cleanly.
        res.on("data", () => undefined);
        res.on("end", () => finish(res.statusCode ?? null, null));
        res.on("error", (error) => finish(res.statusCode ?? null, error.message));
      },
    );
    const timer = setTimeout(() => {
      finish(null, `timed out after ${request.timeoutMs} ms`);
      req.destroy();
    }, request.timeoutMs);
    req.on("error", (error) => finish(null, error.message));
    req.end(request.body);
  });
}

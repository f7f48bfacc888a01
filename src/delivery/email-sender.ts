import { randomUUID } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import nodemailer, { type Transporter } from "nodemailer";
import type { ClaimedEmail } from "../data/delivery.data";
import { TRIGGER_SENDER_ADDRESS } from "../domain/triggers/trigger-runner";

const LOOKS_LIKE_HTML = /<\/?[a-z][a-z0-9]*[^>]*>/i;

export interface EmailSender {
  /** Sends one email; rejects with the reason it could not. */
  send(email: ClaimedEmail): Promise<void>;
  readonly kind: "smtp" | "eml";
  close(): void;
}

/**
 * SMTP when SMTP_URL is set; otherwise each email is written as an .eml file into the mail
 * folder (the embedded default: the demo shows its trigger emails without a mail server).
 */
export function createEmailSender(settings: {
  smtpUrl: string | null;
  mailDir: string;
  timeoutMs: number;
}): EmailSender {
  const message = (email: ClaimedEmail) => ({
    from: TRIGGER_SENDER_ADDRESS,
    to: email.to,
    subject: email.subject,
    // Trigger bodies are usually HTML (the form builder writes them so); plain text stays plain.
    ...(LOOKS_LIKE_HTML.test(email.body) ? { html: email.body } : { text: email.body }),
    messageId: email.messageId ?? undefined,
  });
  if (settings.smtpUrl) {
    const transport: Transporter = nodemailer.createTransport(settings.smtpUrl, {
      connectionTimeout: settings.timeoutMs,
      greetingTimeout: settings.timeoutMs,
      socketTimeout: settings.timeoutMs,
    } as never);
    return {
      kind: "smtp",
      async send(email) {
        await transport.sendMail(message(email));
      },
      close: () => transport.close(),
    };
  }
  const files = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    kind: "eml",
    async send(email) {
      const info = await files.sendMail(message(email));
      await mkdir(settings.mailDir, { recursive: true });
      const name = emlFileName(email);
      // Written under a temporary name, then renamed: a reader of the folder never sees half a file.
      const partial = join(settings.mailDir, `.${name}.${randomUUID()}.partial`);
      await writeFile(partial, info.message as Buffer, { flag: "wx" });
      await rename(partial, join(settings.mailDir, name));
    },
    close: () => files.close(),
  };
}

/**
 * `<outbox id>-<Message-ID>.eml`: sorted in the order queued, and unique across databases and
 * processes sharing a folder (outbox ids repeat between databases, Message-IDs do not).
 */
export function emlFileName(email: Pick<ClaimedEmail, "id" | "messageId">): string {
  const messageId = (email.messageId ?? randomUUID()).replace(/^<|>$/g, "").replace(/[^A-Za-z0-9._@-]/g, "_");
  return `${String(email.id).padStart(8, "0")}-${messageId}.eml`;
}

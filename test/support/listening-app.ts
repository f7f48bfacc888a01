import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";

/** An in-process app listening on a free loopback port, for clients that need a real URL. */
export interface ListeningApp {
  /** http://127.0.0.1:<port><path> */
  url(path: string): string;
  /** Closes every connection (keep-alive ones too) and the listener. */
  close(): Promise<void>;
}

export async function listenOnLoopback(app: Express): Promise<ListeningApp> {
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

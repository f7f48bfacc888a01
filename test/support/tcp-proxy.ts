import net from "node:net";
import { once } from "node:events";

/**
 * A TCP proxy on a free loopback port in front of a server, that can be frozen: while frozen, it
 * forwards nothing either way (bytes wait in its buffers), as a server stopped with SIGSTOP looks
 * from the client, but only for the connections of one test and without touching the server.
 */
export interface TcpProxy {
  port: number;
  freeze(): void;
  /** Freezes as the client sends bytes matching `pattern` (that statement included). */
  freezeOn(pattern: RegExp): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<TcpProxy> {
  let frozen = false;
  let trigger: RegExp | null = null;
  const held: (() => void)[] = [];
  const sockets = new Set<net.Socket>();
  const forward = (from: net.Socket, to: net.Socket, fromClient: boolean) =>
    from.on("data", (chunk: Buffer) => {
      if (fromClient && trigger?.test(chunk.toString("latin1"))) {
        trigger = null;
        frozen = true;
      }
      if (frozen) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    forward(client, upstream, true);
    forward(upstream, client, false);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as net.AddressInfo).port,
    freeze: () => {
      frozen = true;
    },
    freezeOn: (pattern) => {
      trigger = pattern;
    },
    thaw: () => {
      frozen = false;
      for (const send of held.splice(0)) send();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

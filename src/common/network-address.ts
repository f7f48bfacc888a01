import { BlockList, isIP } from "node:net";

// Webhook URLs must not reach the service's own network (SSRF): loopback, private, link-local,
// unique-local, CGNAT and unspecified addresses are refused unless WEBHOOK_ALLOW_PRIVATE=true.

const internal = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  internal.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  internal.addSubnet(network, prefix, "ipv6");

/** Whether an IP address is loopback, private, link-local or otherwise not on the public internet. */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return internal.check(address, "ipv4");
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return internal.check(mapped[1], "ipv4");
    return internal.check(address, "ipv6");
  }
  return true;
}

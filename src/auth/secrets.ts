import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/** A new API token: 32 random bytes, URL-safe. Shown once; only its hash is stored. */
export function generateApiToken(): string {
  return randomBytes(32).toString("base64url");
}

export function hashApiToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/**
 * Compares a presented token with a stored hash in constant time: both sides are fixed-length
 * digests, so neither the comparison nor its length check leaks where they differ.
 */
export function apiTokenMatches(presented: string, storedHash: string): boolean {
  return tokenDigestMatches(presentedTokenDigest(presented), storedHash);
}

/** The digest a presented token is compared by, for a caller that compares it with more than one hash. */
export function presentedTokenDigest(presented: string): Buffer {
  return createHash("sha256").update(presented, "utf8").digest();
}

/** apiTokenMatches for a digest from presentedTokenDigest. */
export function tokenDigestMatches(presentedDigest: Buffer, storedHash: string): boolean {
  const stored = Buffer.from(storedHash, "hex");
  if (stored.length !== presentedDigest.length) {
    timingSafeEqual(presentedDigest, presentedDigest);
    return false;
  }
  return timingSafeEqual(presentedDigest, stored);
}

// scrypt cost N=2^14: slow enough to hurt guessing, fast enough for bulk seeding with a shared
// hash (its time per hash: BENCHMARKS.md). Parameters are stored with the hash so they can be raised later.
const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32 };

function scryptAsync(password: string, salt: Buffer, params: { N: number; r: number; p: number; keyLength: number }) {
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(
      password,
      salt,
      params.keyLength,
      { N: params.N, r: params.r, p: params.p, maxmem: 64 * 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
}

/** Slow, salted hash of a password: `scrypt$N$r$p$salt$hash` (base64url parts). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT);
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await scryptAsync(password, Buffer.from(salt, "base64url"), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    keyLength: expected.length,
  });
  return timingSafeEqual(key, expected);
}

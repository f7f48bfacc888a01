import { z } from "zod";

// How one environment variable's text becomes a value: the parsers every setting module shares,
// each naming its variable in its message.

/** Raised when a variable is invalid; the message names the variable and what it allows. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = "ConfigError";
  }
}

export const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = {
  true: true,
  "1": true,
  yes: true,
  on: true,
  false: false,
  "0": false,
  no: false,
  off: false,
};

export const integerInRange = (variable: string, min: number, max: number) =>
  z.string().transform((raw, ctx) => {
    const value = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
      ctx.addIssue({ code: "custom", message: `${variable}: "${raw}" is not an integer from ${min} to ${max}` });
      return z.NEVER;
    }
    return value;
  });

export const booleanWord = (variable: string) =>
  z.string().transform((raw, ctx) => {
    const value = BOOLEAN_WORDS[raw.trim().toLowerCase()];
    if (value === undefined) {
      ctx.addIssue({ code: "custom", message: `${variable}: "${raw}" is not one of true, false, 1, 0, yes, no` });
      return z.NEVER;
    }
    return value;
  });

/** A comma-separated list, entries trimmed, empty entries dropped. */
export const commaList = () =>
  z.string().transform((raw) =>
    raw
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ""),
  );

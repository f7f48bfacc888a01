import type { Response } from "supertest";

type Expected = RegExp | string;

export interface LegacyErrorExpectation {
  msg?: Expected;
  /** The member problems, in order; without it the body must have no `errors`. */
  errors?: { path: string; message?: Expected }[];
  /** Members some errors add before request_id (e.g. clogin_id on a CONFLICT of create), with their values. */
  extra?: Record<string, unknown>;
}

const expectText = (actual: unknown, expected: Expected | undefined) => {
  if (expected instanceof RegExp) expect(actual).toMatch(expected);
  else if (expected !== undefined) expect(actual).toBe(expected);
};

/**
 * The legacy error body (contract §3), as strictly as it is defined: the HTTP status, JSON
 * content type, exactly these members in this order, the code, the message, each problem with
 * exactly `path` and `message`, and `request_id` equal to the X-Request-Id header. Returns the
 * body without `request_id`, so bodies of two requests can be compared.
 */
export function expectLegacyError(
  res: Response,
  status: number,
  code: string,
  expected: LegacyErrorExpectation = {},
): Record<string, unknown> {
  expect([res.status, res.body.error_code]).toEqual([status, code]);
  expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
  const members = [
    "success",
    "msg",
    "msg_type",
    "error_code",
    ...(expected.errors ? ["errors"] : []),
    ...Object.keys(expected.extra ?? {}),
    "request_id",
  ];
  expect(Object.keys(res.body)).toEqual(members);
  expect(res.body.success).toBe(false);
  expect(res.body.msg_type).toBe("error");
  expect(typeof res.body.msg).toBe("string");
  expectText(res.body.msg, expected.msg);
  if (expected.errors) {
    const problems = res.body.errors as { path: string; message: string }[];
    expect(problems.map((problem) => problem.path)).toEqual(expected.errors.map((problem) => problem.path));
    expected.errors.forEach((problem, i) => {
      expect(Object.keys(problems[i])).toEqual(["path", "message"]);
      expect(typeof problems[i].message).toBe("string");
      expectText(problems[i].message, problem.message);
    });
  }
  for (const [member, value] of Object.entries(expected.extra ?? {})) expect(res.body[member]).toEqual(value);
  expect(typeof res.body.request_id).toBe("string");
  expect(res.body.request_id).toBe(res.headers["x-request-id"]);
  const { request_id: _requestId, ...withoutRequestId } = res.body as Record<string, unknown>;
  return withoutRequestId;
}

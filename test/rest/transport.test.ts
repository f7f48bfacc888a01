import request from "supertest";
import * as statusesService from "../../src/domain/statuses/statuses.service";
import { Status } from "../../src/entities";
import { usersActions } from "../../src/rest/users/users.actions";
import { MAPLE, mapleHeaders, OTHER } from "../fixtures/test-fixture";
import { expectLegacyError } from "../support/legacy-error";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const ENDPOINTS = ["users", "statuses", "projects", "products"] as const;
const listProjects = { action: "get_project_list", group_id: MAPLE.groupId, doc: {} };

describe("transport (contract §1): methods", () => {
  for (const endpoint of ENDPOINTS) {
    for (const method of ["get", "put", "delete", "patch"] as const) {
      it(`${method.toUpperCase()} /reg/api2/${endpoint}/ is 405 METHOD_NOT_ALLOWED with Allow: POST`, async () => {
        const res = await request(t.app)[method](`/reg/api2/${endpoint}/`).set(mapleHeaders);
        expectLegacyError(res, 405, "METHOD_NOT_ALLOWED", {
          msg: `Method ${method.toUpperCase()} is not allowed on /reg/api2/${endpoint}/; use POST.`,
        });
        expect(res.headers.allow).toBe("POST");
      });
    }
  }

  it("a wrong method is refused before authentication (no credentials still gives 405)", async () => {
    const res = await request(t.app).get("/reg/api2/projects/");
    expectLegacyError(res, 405, "METHOD_NOT_ALLOWED");
  });

  it("an endpoint this server does not have (/reg/api2/orders/) is 404 NOT_FOUND with the error body", async () => {
    const res = await postRest(t.app, "/reg/api2/orders/", { action: "create", group_id: MAPLE.groupId, doc: {} });
    expectLegacyError(res, 404, "NOT_FOUND", { msg: "No route for POST /reg/api2/orders/." });
  });

  it("the trailing slash is optional on every endpoint, and the letter case of its name does not matter", async () => {
    for (const path of ["/reg/api2/projects", "/reg/api2/projects/"] as const) {
      const res = await postRest(t.app, path, listProjects);
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
    }
    for (const path of ["/reg/api2/Projects/", "/reg/api2/PROJECTS"] as const)
      expect((await postRest(t.app, path, listProjects)).status).toBe(200);
    expectLegacyError(await postRest(t.app, "/reg/api2/projects//", listProjects), 404, "NOT_FOUND");
    for (const endpoint of ENDPOINTS) {
      const res = await postRest(t.app, `/reg/api2/${endpoint}`, { action: "no_such_action", group_id: MAPLE.groupId });
      expectLegacyError(res, 400, "UNKNOWN_ACTION");
    }
  });
});

describe("transport (contract §1): content type and body", () => {
  it("text/plain is 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    const res = await request(t.app)
      .post("/reg/api2/projects/")
      .set(mapleHeaders)
      .set("Content-Type", "text/plain")
      .send(JSON.stringify(listProjects));
    expectLegacyError(res, 415, "UNSUPPORTED_MEDIA_TYPE", {
      msg: 'The request body must be JSON sent as Content-Type: application/json; got Content-Type "text/plain".',
    });
  });

  it("a form-encoded body is 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    const res = await request(t.app)
      .post("/reg/api2/statuses/")
      .set(mapleHeaders)
      .type("form")
      .send({ action: "create", group_id: String(MAPLE.groupId) });
    expectLegacyError(res, 415, "UNSUPPORTED_MEDIA_TYPE", {
      msg: /got Content-Type "application\/x-www-form-urlencoded"/,
    });
  });

  it("a body without Content-Type is 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    const res = await request(t.app)
      .post("/reg/api2/projects/")
      .set(mapleHeaders)
      .send(Buffer.from(JSON.stringify(listProjects)));
    expectLegacyError(res, 415, "UNSUPPORTED_MEDIA_TYPE", { msg: /got no Content-Type/ });
  });

  it("the content type is checked before authentication", async () => {
    const res = await request(t.app).post("/reg/api2/projects/").set("Content-Type", "text/plain").send("{}");
    expectLegacyError(res, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("application/json with a charset (any case) is accepted", async () => {
    for (const type of ["application/json; charset=utf-8", "Application/JSON;charset=UTF-8", "application/json"]) {
      const res = await request(t.app)
        .post("/reg/api2/projects/")
        .set(mapleHeaders)
        .set("Content-Type", type)
        .send(JSON.stringify(listProjects));
      expect(res.status).toBe(200);
    }
  });

  it("a charset other than UTF-8 is 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    const res = await request(t.app)
      .post("/reg/api2/projects/")
      .set(mapleHeaders)
      .set("Content-Type", "application/json; charset=latin1")
      .send(JSON.stringify(listProjects));
    expectLegacyError(res, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("malformed JSON is 400 INVALID_JSON", async () => {
    const res = await request(t.app)
      .post("/reg/api2/statuses/")
      .set(mapleHeaders)
      .set("Content-Type", "application/json")
      .send('{"action": "create", "group_id": ');
    expectLegacyError(res, 400, "INVALID_JSON", { msg: "The request body is not valid JSON." });
  });

  it("malformed JSON is reported before authentication", async () => {
    const res = await request(t.app).post("/reg/api2/statuses/").set("Content-Type", "application/json").send("{nope");
    expectLegacyError(res, 400, "INVALID_JSON");
  });

  it("a body over 1 MiB is 413 PAYLOAD_TOO_LARGE", async () => {
    const body = JSON.stringify({ ...listProjects, doc: { padding: "x".repeat(1024 * 1024) } });
    expect(Buffer.byteLength(body)).toBeGreaterThan(1024 * 1024);
    const res = await request(t.app)
      .post("/reg/api2/projects/")
      .set(mapleHeaders)
      .set("Content-Type", "application/json")
      .send(body);
    expectLegacyError(res, 413, "PAYLOAD_TOO_LARGE", { msg: "The request body is larger than 1 MiB (1048576 bytes)." });
  });

  it("a body of exactly 1 MiB is accepted", async () => {
    const shell = JSON.stringify({ ...listProjects, doc: { padding: "" } });
    const body = JSON.stringify({
      ...listProjects,
      doc: { padding: "x".repeat(1024 * 1024 - Buffer.byteLength(shell)) },
    });
    expect(Buffer.byteLength(body)).toBe(1024 * 1024);
    const res = await request(t.app)
      .post("/reg/api2/projects/")
      .set(mapleHeaders)
      .set("Content-Type", "application/json")
      .send(body);
    expect(res.status).toBe(200);
  });
});

describe("envelope (contract §1, §8): checked before the group's owner", () => {
  const cases: [string, unknown, RegExp][] = [
    ["a JSON array body", [listProjects], /the body must be a JSON object/],
    ["a JSON string body", "get_project_list", /the body must be a JSON object/],
    ["a JSON null body", null, /the body must be a JSON object/],
  ];
  for (const [name, body, msg] of cases) {
    it(`${name} is 400 VALIDATION_FAILED`, async () => {
      const res = await request(t.app)
        .post("/reg/api2/projects/")
        .set(mapleHeaders)
        .set("Content-Type", "application/json")
        .send(JSON.stringify(body));
      expectLegacyError(res, 400, "VALIDATION_FAILED", { msg });
    });
  }

  it("an empty body is 400 VALIDATION_FAILED naming action and group_id", async () => {
    const res = await request(t.app)
      .post("/reg/api2/projects/")
      .set(mapleHeaders)
      .set("Content-Type", "application/json")
      .send("");
    expectLegacyError(res, 400, "VALIDATION_FAILED", {
      errors: [
        { path: "action", message: "is required" },
        { path: "group_id", message: "is required" },
      ],
    });
  });

  for (const endpoint of ENDPOINTS) {
    it(`a missing action on /${endpoint}/ is 400 VALIDATION_FAILED even for a foreign group`, async () => {
      const res = await postRest(t.app, `/reg/api2/${endpoint}/`, { group_id: OTHER.groupId, doc: {} });
      expectLegacyError(res, 400, "VALIDATION_FAILED", {
        msg: "action is required.",
        errors: [{ path: "action", message: "is required" }],
      });
    });

    it(`a missing group_id on /${endpoint}/ is 400 VALIDATION_FAILED`, async () => {
      const res = await postRest(t.app, `/reg/api2/${endpoint}/`, { action: "create", doc: {} });
      expectLegacyError(res, 400, "VALIDATION_FAILED", {
        msg: "group_id is required.",
        errors: [{ path: "group_id", message: "is required" }],
      });
    });
  }

  it("a non-string action is 400 VALIDATION_FAILED naming action", async () => {
    const res = await postRest(t.app, "/reg/api2/statuses/", { action: 7, group_id: MAPLE.groupId });
    expectLegacyError(res, 400, "VALIDATION_FAILED", { errors: [{ path: "action", message: "must be a string" }] });
  });

  for (const bad of ["12a", "", " 100909072", -5, 1.5, true, [100909072], { id: 1 }]) {
    it(`group_id ${JSON.stringify(bad)} is 400 VALIDATION_FAILED naming group_id`, async () => {
      const res = await postRest(t.app, "/reg/api2/projects/", { ...listProjects, group_id: bad });
      expectLegacyError(res, 400, "VALIDATION_FAILED", {
        msg: /^group_id must be an integer or a string of digits/,
        errors: [{ path: "group_id", message: /^must be an integer or a string of digits, got / }],
      });
    });
  }

  it("group_id as a string of digits is accepted", async () => {
    const res = await postRest(t.app, "/reg/api2/projects/", { ...listProjects, group_id: String(MAPLE.groupId) });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it("invalid members for a foreign project are 400, not 403 (all validation before ownership)", async () => {
    const res = await postRest(t.app, "/reg/api2/statuses/", {
      action: "create",
      group_id: OTHER.groupId,
      doc: { status_name: "", color: "red" },
    });
    expectLegacyError(res, 400, "VALIDATION_FAILED", {
      errors: [
        { path: "doc.status_name", message: "must not be empty" },
        { path: "doc.color", message: 'must be a colour of the form #RRGGBB, got "red"' },
      ],
    });
  });

  it("group_id is checked before the action name (an unknown action without group_id is VALIDATION_FAILED)", async () => {
    const res = await postRest(t.app, "/reg/api2/projects/", { action: "no_such_action" });
    expectLegacyError(res, 400, "VALIDATION_FAILED", { errors: [{ path: "group_id", message: "is required" }] });
  });

  it("an action's members are checked before ownership: a bad flag for a foreign project is 400", async () => {
    const res = await postRest(t.app, "/reg/api2/projects/", {
      ...listProjects,
      group_id: OTHER.groupId,
      doc: { with_archived: "yes" },
    });
    expectLegacyError(res, 400, "VALIDATION_FAILED", {
      errors: [{ path: "doc.with_archived", message: 'must be true or false (or 1 or 0), got "yes"' }],
    });
  });

  it("mark_forms_complete outside users update is 400 naming it", async () => {
    const res = await postRest(t.app, "/reg/api2/projects/", { ...listProjects, mark_forms_complete: "all" });
    expectLegacyError(res, 400, "VALIDATION_FAILED", {
      errors: [{ path: "mark_forms_complete", message: "is valid only with action update on the users endpoint" }],
    });
  });
});

describe("actions (contract §1): unknown and not yet implemented", () => {
  const validActions = {
    users: Object.keys(usersActions),
    statuses: ["create"],
    projects: ["get_project_list"],
    products: ["create", "create_category"],
  };
  for (const endpoint of ENDPOINTS) {
    it(`an unknown action on /${endpoint}/ is 400 UNKNOWN_ACTION listing that endpoint's actions`, async () => {
      const res = await postRest(t.app, `/reg/api2/${endpoint}/`, {
        action: "delete_everything",
        group_id: MAPLE.groupId,
      });
      const list = validActions[endpoint].length > 0 ? validActions[endpoint].join(", ") : "(none yet)";
      expectLegacyError(res, 400, "UNKNOWN_ACTION", {
        msg: `Unknown action "delete_everything"; valid actions on /reg/api2/${endpoint}/: ${list}.`,
      });
    });
  }

  it("the projects action of the wrong endpoint is unknown there", async () => {
    const res = await postRest(t.app, "/reg/api2/statuses/", listProjects);
    expectLegacyError(res, 400, "UNKNOWN_ACTION", {
      msg: 'Unknown action "get_project_list"; valid actions on /reg/api2/statuses/: create.',
    });
  });

  it("an inherited property name is not an action", async () => {
    for (const name of ["constructor", "__proto__", "toString"]) {
      const res = await postRest(t.app, "/reg/api2/projects/", { action: name, group_id: MAPLE.groupId });
      expectLegacyError(res, 400, "UNKNOWN_ACTION");
    }
  });

  it("a very long action name is cut short in the message", async () => {
    const res = await postRest(t.app, "/reg/api2/projects/", { action: "a".repeat(5000), group_id: MAPLE.groupId });
    expectLegacyError(res, 400, "UNKNOWN_ACTION");
    expect(res.body.msg.length).toBeLessThan(200);
  });
});

describe("responses (contract §1, §3, §8)", () => {
  it("echoes the client's X-Request-Id in the header and the error body", async () => {
    const res = await postRest(
      t.app,
      "/reg/api2/projects/",
      { action: "nope", group_id: MAPLE.groupId },
      { ...mapleHeaders, "X-Request-Id": "client-req-42" },
    );
    expect(res.headers["x-request-id"]).toBe("client-req-42");
    expect(res.body.request_id).toBe("client-req-42");
  });

  it("makes a request id when the client sends none, equal in header and body", async () => {
    const res = await postRest(t.app, "/reg/api2/projects/", { action: "nope", group_id: MAPLE.groupId });
    expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.request_id).toBe(res.headers["x-request-id"]);
  });

  it("a success is HTTP 200, JSON in UTF-8, with X-Request-Id", async () => {
    const res = await postRest(t.app, "/reg/api2/projects/", listProjects, { ...mapleHeaders, "X-Request-Id": "ok-1" });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.headers["x-request-id"]).toBe("ok-1");
  });

  it("an unexpected error is 500 INTERNAL, masked: no stack, no SQL, the request id to quote", async () => {
    const failure = new Error("ER_PARSE_ERROR: near 'SELECT token_hash FROM api_account' at line 1");
    const spy = jest.spyOn(statusesService, "createStatus").mockRejectedValueOnce(failure);
    try {
      const res = await postRest(
        t.app,
        "/reg/api2/statuses/",
        { action: "create", group_id: MAPLE.groupId, doc: { status_name: "Boom", color: "#123456" } },
        { ...mapleHeaders, "X-Request-Id": "boom-1" },
      );
      expectLegacyError(res, 500, "INTERNAL", { msg: "Internal error; quote request id boom-1 when reporting it." });
      expect(spy).toHaveBeenCalledTimes(1);
      expect(res.text).not.toMatch(/SELECT|token_hash|ER_PARSE|at .*\.ts:\d+|stack/i);
    } finally {
      spy.mockRestore();
    }
    expect(await t.dataSource.manager.countBy(Status, { name: "Boom" })).toBe(0);
  });
});

describe("database unreachable", () => {
  it("is 503 SERVICE_UNAVAILABLE with the error body", async () => {
    const broken = await startTestApp();
    await broken.dispose(); // the database goes away under a running app
    try {
      const res = await request(broken.app).post("/reg/api2/projects/").set(mapleHeaders).send(listProjects);
      expectLegacyError(res, 503, "SERVICE_UNAVAILABLE", { msg: "The database is unavailable; try again shortly." });
      expect(res.text).not.toMatch(/sqlite|mysql|pool|stack/i);
    } finally {
      await broken.regapi.stop();
    }
  });
});

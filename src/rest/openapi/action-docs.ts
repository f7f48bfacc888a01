import demo from "../../fixtures/demo.json";

// What the generated OpenAPI document says about each endpoint and action beyond their schemas:
// a summary, what the answer holds, and an example request built from the demo data (so every
// example runs as is against `regapi demo`). A test checks that this list and the router's action
// tables name the same actions.

const organization = demo.organizations[0];
const camp = organization.projects[0];
const camper = (name: string) => {
  const found = camp.users?.find((user) => user.username === name);
  if (!found) throw new Error(`the demo data has no user ${name}`);
  return found;
};
const miles = camper("miles@maple.test");
const kind = camper("kind-of-blue@maple.test");
const named = <Item extends { name: string }>(items: Item[] | undefined, name: string): Item => {
  const found = items?.find((item) => item.name === name);
  if (!found) throw new Error(`the demo data has no ${name}`);
  return found;
};
const week2 = named(camp.products, "Week 2");
const tShirt = named(camp.products, "Camp T-shirt");
const extras = named(camp.categories, "Extras");
const accepted = named(camp.statuses, "Accepted");
const manager = organization.admins.find((admin) => admin.level === "manager")!;

export interface ActionDoc {
  summary: string;
  /** What a successful answer holds (the legacy success body, `success: true`). */
  answer: string;
  example: Record<string, unknown>;
}

export interface EndpointDoc {
  summary: string;
  description: string;
  actions: Record<string, ActionDoc>;
}

const groupId = camp.id;

export const ENDPOINT_DOCS: Record<string, EndpointDoc> = {
  users: {
    summary: "Registrations: create, update, families, carts, emails, login and reads",
    description:
      "Every users action works on one registration (clogin_id) of the project group_id, except create and get_user_list. Members of `doc` other than the person members are field values by field identifier or mapped name.",
    actions: {
      create: {
        summary: "Register a new person (or an existing one of your organization) in the project",
        answer: "msg, system_action [user_registered], notices (when any), user_info, meta_info",
        example: {
          action: "create",
          group_id: groupId,
          doc: {
            username: "ella@maple.test",
            password: "secret3",
            main_email: "ella@maple.test",
            first_name: "Ella",
            last_name: "Fitzgerald",
            f_301_3: "M",
          },
        },
      },
      update: {
        summary: "Save field values, submit forms, mark forms complete",
        answer:
          "msg, system_action [user_updated], notices; with mark_forms_complete also marked_complete and skipped; user_info, meta_info. For someone not registered in the project the call is accepted and writes nothing (the original interface's rule): system_action [], a notice naming the clogin_id and the project, user_info with the ids sent, meta_info null, and with mark_forms_complete marked_complete [] and every id in skipped",
        example: {
          action: "update",
          group_id: groupId,
          clogin_id: miles.cloginId,
          doc: { f_301_3: "L", allergies: "none" },
        },
      },
      create_child: {
        summary: "Register a child of a registered parent (family projects)",
        answer: "msg, system_action [child_registered], notices (when any), user_info, meta_info",
        example: {
          action: "create_child",
          group_id: groupId,
          connected_to: miles.cloginId,
          doc: { first_name: "Tutu", last_name: "Davis", f_301_3: "S" },
        },
      },
      set_status: {
        summary: "Set a registration's status",
        answer: "msg, msg_type success, users [clogin_id], effected_users 1, user_info, meta_info",
        example: { action: "set_status", group_id: groupId, clogin_id: miles.cloginId, status_id: accepted.id },
      },
      add_product: {
        summary: "Add products (or private products) to a registration's cart, all or nothing",
        answer: "msg, system_action [product_added], cart_ids, notices, user_info, meta_info",
        example: {
          action: "add_product",
          group_id: groupId,
          clogin_id: miles.cloginId,
          product_list: [
            { p_id: week2.id, q: 1 },
            { p_id: tShirt.id, q: 2, product_remark: "one M, one L" },
          ],
        },
      },
      add_email: {
        summary: "Record emails in a registration's history",
        answer: "msg, user_info, meta_info",
        example: {
          action: "add_email",
          group_id: groupId,
          clogin_id: miles.cloginId,
          doc: {
            email_list: [
              {
                from: "office@maple.test",
                to: miles.username,
                subject: "Welcome to Summer Camp 2027",
                body: "See you at the lake.",
                admin_id: manager.id,
              },
            ],
          },
        },
      },
      login: {
        summary: "Issue a one-time login token for a registration (redeem it at /reg/api2/session/)",
        answer: "msg, system_action [user_logged_in], user_token, user_token_expires_at, user_info, meta_info",
        example: { action: "login", group_id: groupId, clogin_id: miles.cloginId },
      },
      get_user_list: {
        summary: "A page of the project's registrations, with selected values",
        answer:
          "msg, total_users, records_per_page, starting_position, next_starting_position, totals, users, children, notices (when any)",
        example: { action: "get_user_list", group_id: groupId, doc: { return_families: true, first_name: true } },
      },
      get_info: {
        summary: "One registration's summary and selected details",
        answer: "msg, doc (when keys were selected), notices (when any), user_info, meta_info",
        example: {
          action: "get_info",
          group_id: groupId,
          clogin_id: kind.cloginId,
          doc: { first_name: true, _usercart: true },
        },
      },
    },
  },
  statuses: {
    summary: "Registration statuses of a project",
    description: "Statuses are per project; a status with is_excluded set leaves its registrations out of totals.",
    actions: {
      create: {
        summary: "Create a status",
        answer: "msg, msg_type info, status_id (a number)",
        example: {
          action: "create",
          group_id: groupId,
          doc: { status_name: "Waiting list", color: "#FFAA00", is_excluded: false },
        },
      },
    },
  },
  projects: {
    summary: "The projects of your organization",
    description: "group_id names any project of your organization; the list covers all of them.",
    actions: {
      get_project_list: {
        summary: "List the organization's projects, optionally with totals",
        answer:
          "projects (group_id, group_name, group_currency, creation_date, _excluded, group_totals when asked), and the three flags as booleans",
        example: {
          action: "get_project_list",
          group_id: groupId,
          doc: { with_archived: true, with_group_totals: true },
        },
      },
    },
  },
  products: {
    summary: "Products and product categories of a project",
    description:
      "Product members depend on each other (a session needs parent_p_id, merchandise takes no dates); every broken rule is reported at once.",
    actions: {
      create: {
        summary: "Create a product",
        answer: "msg, msg_type info, p_id",
        example: {
          action: "create",
          group_id: groupId,
          doc: {
            base_product_type: 7,
            product_name: "Water bottle",
            product_price: "12.00",
            cat_id: extras.id,
            product_type: 0,
          },
        },
      },
      create_category: {
        summary: "Create a product category",
        answer: "msg, msg_type info, cat_id",
        example: {
          action: "create_category",
          group_id: groupId,
          doc: { category_name: "Transport", category_top_remark: "Bus from town", mandatory_category: false },
        },
      },
    },
  },
  events: {
    summary: "The pull event feed (ours, not the original API's)",
    description:
      "The events webhooks deliver, oldest first, with a cursor: same ids and bodies as deliveries (plus `actor`), so a consumer may combine both and deduplicate by id. group_id is optional: absent, every project of your organization. Pass `end_cursor` back as `doc.after`. A cursor older than what the feed keeps (EVENT_RETENTION_DAYS) answers 410 CURSOR_EXPIRED: resync.",
    actions: {
      list: {
        summary: "Read events after a cursor",
        answer:
          "msg, events [{id, type, created_at, group_id, actor, data}], end_cursor (always set: keep it), has_more",
        example: {
          action: "list",
          group_id: groupId,
          doc: { types: ["user.created", "user.updated"], limit: 100 },
        },
      },
    },
  },
  account: {
    summary: "The calling API key (ours)",
    description:
      "Not in the legacy interface. group_id is required by the envelope but the answer does not depend on it. whoami needs no scope, so a limited key can learn what it may do.",
    actions: {
      whoami: {
        summary: "The key's Api-Id, Api-User, organization and scope",
        answer:
          'api_id, api_user, organization_id, full_access, scopes ("all" or the scope names), group_ids ("all" or the project ids)',
        example: { action: "whoami", group_id: groupId },
      },
    },
  },
  persons: {
    summary: "A person's data: export and erasure (ours)",
    description:
      "Not in the legacy interface. Acts on one person (clogin_id) across every project of your organization; group_id must be one of its projects. Needs a key not limited to projects, with the scope persons.export or persons.erase (docs/data-rights.md).",
    actions: {
      export: {
        summary: "Everything held about the person, as one JSON document",
        answer:
          "person_export: format, exported_at, clogin_id, person, registrations (field values, forms, cart, payments, emails, tags, comments), events",
        example: { action: "export", group_id: groupId, clogin_id: kind.cloginId },
      },
      erase: {
        summary: "Erase the person in one transaction; amounts of cart lines and payments are kept without identity",
        answer:
          "msg, clogin_id, group_ids (each got a person.erased event), erased (rows removed or anonymized, by kind)",
        example: { action: "erase", group_id: groupId, clogin_id: kind.cloginId },
      },
    },
  },
};

/** The session endpoint has no action envelope: one request shape. */
export const SESSION_EXAMPLE = { user_token: "<user_token from users login>" };

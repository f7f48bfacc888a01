import { randomUUID } from "node:crypto";
import {
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type ValidationRule,
} from "graphql";
import type { AppDependencies } from "../../http/app-dependencies";
import type { Logger } from "../../http/logger";
import { createRequestContext, domainSettingsOf } from "../../domain/context";
import type { LiveEventHub } from "../../runtime/live-events-hub";
import { createSubscriptionContext, type LiveConnection } from "../context";
import { presentError } from "../graphql-errors";
import { GRAPHQL_LIMITS } from "../limits";
import { authRefusal } from "./connection-auth";
import { CLOSE_CODES, type Connection } from "./connections";

// The delivery part of the subscription server: a subscribe message becomes an execution (checked
// as a query over HTTP is: parsed within the token limit, validated with the same rules; only
// subscriptions), whose context opens the runtime's live events for it; its errors are presented
// as over HTTP: domain codes, unexpected errors masked and logged.

/** The refusal of a subscription beyond SUBSCRIPTIONS_PER_CONNECTION (extensions.code). */
export const TOO_MANY_SUBSCRIPTIONS = "TOO_MANY_SUBSCRIPTIONS";

const refusal = (message: string, code: string) => [new GraphQLError(message, { extensions: { code } })];

function toGraphqlError(formatted: { message: string; extensions?: Record<string, unknown> }): GraphQLError {
  return new GraphQLError(formatted.message, { extensions: formatted.extensions });
}

/** A subscribe message as graphql-ws hands it over. */
export interface SubscribeMessage {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

/** Turns subscribe messages into executions that read the runtime's live events. */
export class SubscriptionDelivery {
  private readonly rules: readonly ValidationRule[];

  constructor(
    private readonly deps: AppDependencies,
    private readonly hub: LiveEventHub,
    private readonly schema: GraphQLSchema,
    validationRules: readonly ValidationRule[],
  ) {
    this.rules = [...specifiedRules, ...validationRules];
  }

  /** The execution of a subscribe message on `connection` (holding `subscriptionCount` with it), or why it is refused. */
  subscribe(
    connection: Connection | undefined,
    subscriptionCount: number,
    payload: SubscribeMessage,
  ): ExecutionArgs | readonly GraphQLError[] {
    const { logger, config } = this.deps;
    if (!connection) return refusal("The connection is closing.", "UNAVAILABLE");
    const requestId = randomUUID();
    const refused = authRefusal(connection, logger, requestId);
    if (refused) return refusal(refused.message, refused.code);
    // The new id is already in the record: more than the limit means one too many.
    const perConnection = config.subscriptions.perConnection;
    if (subscriptionCount > perConnection) {
      return refusal(
        `Too many subscriptions on this connection (limit ${perConnection}, SUBSCRIPTIONS_PER_CONNECTION); complete one or open another connection.`,
        TOO_MANY_SUBSCRIPTIONS,
      );
    }
    const document = this.checkedDocument(payload, requestId);
    if (Array.isArray(document)) return document;
    const request = createRequestContext(this.deps.state, requestId, connection.principal, {
      registrant: connection.registrant,
      settings: domainSettingsOf(config),
    });
    return {
      schema: this.schema,
      document,
      operationName: payload.operationName,
      variableValues: payload.variables,
      contextValue: createSubscriptionContext(request, logger.child({ requestId }), null, this.liveFor(connection)),
    };
  }

  /** A result's errors presented as over HTTP (the execution's own logger names its request). */
  presentResult(args: ExecutionArgs, result: ExecutionResult) {
    if (!result.errors?.length) return;
    const log = (args.contextValue as { log?: Logger }).log ?? this.deps.logger;
    return { ...result, errors: result.errors.map((error) => presentError(error, { log, requestId: "ws" })) };
  }

  /** The errors of a refused or failed subscription, presented as over HTTP. */
  presentErrors(errors: readonly GraphQLError[]): GraphQLFormattedError[] {
    return errors.map((error) =>
      error.extensions?.code ? error.toJSON() : presentError(error, { log: this.deps.logger, requestId: "ws" }),
    );
  }

  /** The message's document, parsed and validated, and a subscription; otherwise the errors to answer. */
  private checkedDocument(payload: SubscribeMessage, requestId: string) {
    let document;
    try {
      document = parse(payload.query, { maxTokens: GRAPHQL_LIMITS.maxTokens });
    } catch (error) {
      return [error instanceof GraphQLError ? error : new GraphQLError(String(error))];
    }
    const errors = validate(this.schema, document, this.rules);
    if (errors.length > 0)
      return errors.map((error) => toGraphqlError(presentError(error, { log: this.deps.logger, requestId })));
    const operation = getOperationAST(document, payload.operationName);
    if (operation && operation.operation !== "subscription") {
      return refusal(
        "Only subscriptions are served over WebSocket; send queries and mutations over HTTP (POST /graphql).",
        "BAD_REQUEST",
      );
    }
    return document;
  }

  /** The live events of one connection: a subscriber whose queue overflows closes it (4008). */
  private liveFor(connection: Connection): LiveConnection {
    const queueMax = this.deps.config.subscriptions.queueMaxEvents;
    return {
      open: (filter) =>
        this.hub.open(filter, () =>
          connection.socket.close(CLOSE_CODES.slowConsumer, `Slow consumer: more than ${queueMax} events waiting`),
        ),
    };
  }
}

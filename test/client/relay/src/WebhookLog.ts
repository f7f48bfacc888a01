import { graphql } from "./graphql-tag";

// An endpoint's delivery log as a Relay connection (issue 24: webhookDeliveries became one).
export const WebhookLogFragment = graphql`
  fragment WebhookLog_query on Query
  @argumentDefinitions(
    endpointId: { type: "Int!" }
    count: { type: "Int", defaultValue: 20 }
    cursor: { type: "String" }
  )
  @refetchable(queryName: "WebhookLogPaginationQuery") {
    webhookDeliveries(endpointId: $endpointId, first: $count, after: $cursor)
      @connection(key: "WebhookLog_webhookDeliveries") {
      edges {
        node {
          id
          deliveryId
          state
        }
      }
    }
  }
`;

export const WebhookLogQuery = graphql`
  query WebhookLogQuery($endpointId: Int!) {
    ...WebhookLog_query @arguments(endpointId: $endpointId)
  }
`;

// Where purchases meet benefit grants: checkout fulfilment and subscription revoke call these inside
// the transactions of the change that triggers them; the grants service marks the rows and queues
// the work in that same transaction.
export {
  grantBenefitsForOrder,
  revokeBenefitsForSubscription,
  revokeBenefitsOutsideProduct,
  type GrantQueueDeps,
} from "./service.ts";

/** The commands that ../shared/spec/cli.md names (the contract), the groups apart. */
export const CONTRACT_GROUPS = ['auth', 'contacts', 'orders', 'events', 'sandbox'];

/** The contract's commands that run something (`svc api` is one of its own). */
export const CONTRACT_COMMANDS = [
  'auth login',
  'auth status',
  'auth token',
  'auth logout',
  'contacts list',
  'contacts get',
  'contacts create',
  'contacts patch',
  'contacts unsubscribe',
  'contacts delete',
  'orders import',
  'orders upsert',
  'events send',
  'api',
  'sandbox start',
  'sandbox outbox',
  'sandbox reset',
];

/** The order presets svc ships (`svc orders presets`), in the order it lists them. */
export const SHIPPED_PRESETS = [
  'amazon',
  'bigcommerce',
  'ebay',
  'etsy',
  'magento',
  'prestashop',
  'shopify',
  'square',
  'squarespace',
  'stripe',
  'woocommerce',
  'woocommerce-analytics',
  'woocommerce-customer-order',
  'woocommerce-webtoffee',
];

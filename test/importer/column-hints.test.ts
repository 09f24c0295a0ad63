import { describe, expect, it } from 'vitest';
import { resolveColumns } from '../../src/importer/mapping.js';

/** The hint of the usage error a header without the required columns gets. */
function hint(header: string[], maps: Record<string, string> = {}): string {
  try {
    resolveColumns(header, new Map(Object.entries(maps)), ',');
  } catch (e) {
    return (e as { hint?: string }).hint ?? '';
  }
  return 'no error';
}

// The default headers of the exports issue 27 names (see docs/presets.md).
const WOO_CUSTOMER_ORDER =
  'order_id,order_number,order_number_formatted,order_date,status,shipping_total,shipping_tax_total,fee_total,fee_tax_total,tax_total,cart_discount,order_discount,discount_total,order_total,refunded_total,order_currency,payment_method,shipping_method,customer_id,billing_first_name,billing_last_name,billing_company,billing_email,billing_phone,billing_address_1,billing_address_2,billing_postcode,billing_city,billing_state,billing_state_code,billing_country,shipping_first_name,shipping_last_name,shipping_address_1,shipping_address_2,shipping_postcode,shipping_city,shipping_state,shipping_state_code,shipping_country,shipping_company,customer_note,line_items,shipping_items,fee_items,tax_items,coupon_items,order_notes,download_permissions_granted'.split(
    ',',
  );
const BIGCOMMERCE =
  'Order ID,Customer ID,Customer Name,Customer Email,Customer Phone,Order Date,Order Status,Subtotal (inc tax),Subtotal (ex tax),Tax Total,Shipping Cost (inc tax),Shipping Cost (ex tax),Ship Method,Handling Cost (inc tax),Handling Cost (ex tax),Store Credit Redeemed,Gift Certificate Amount Redeemed,Gift Certificate Code,Gift Certificate Expiration Date,Coupon Details,Order Total (inc tax),Order Total (ex tax),Payment Method,Total Quantity,Total Shipped,Date Shipped,Order Currency Code,Exchange Rate,Order Notes,Customer Message,Billing First Name,Billing Last Name,Billing Company,Billing Street 1,Billing Street 2,Billing Suburb,Billing State,Billing Zip,Billing Country,Billing Phone,Billing Email,Shipping First Name,Shipping Last Name,Shipping Company,Shipping Street 1,Shipping Street 2,Shipping Suburb,Shipping State,Shipping Zip,Shipping Country,Shipping Phone,Shipping Email,Product Details,Refund Amount,Channel ID,Channel Name'.split(
    ',',
  );
const MAGENTO_GRID = [
  'ID',
  'Purchase Point',
  'Purchase Date',
  'Bill-to Name',
  'Ship-to Name',
  'Grand Total (Base)',
  'Grand Total (Purchased)',
  'Status',
  'Billing Address',
  'Shipping Address',
  'Shipping Information',
  'Customer Email',
  'Customer Group',
  'Subtotal',
  'Shipping and Handling',
  'Customer Name',
  'Payment Method',
  'Total Refunded',
];

describe('no confident wrong guess in the hint for a missing field', () => {
  it('WooCommerce Customer/Order export: order_total, never shipping_total', () => {
    const h = hint(WOO_CUSTOMER_ORDER);
    expect(h).toBe(
      'name the columns after the fields, or map them: --map total=order_total --map currency=order_currency --map email=billing_email',
    );
    expect(h).not.toMatch(/shipping_total|tax_total|discount_total|refunded_total/);
  });

  it('BigCommerce: never "Tax Total"; the two order totals are listed and the user asked to pick one', () => {
    const h = hint(BIGCOMMERCE);
    expect(h).toBe(
      'name the columns after the fields, or map them: --map total=? (several columns could be total: "Order Total (inc tax)", "Order Total (ex tax)"; pick one) --map currency="Order Currency Code" --map email=? (several columns could be email: "Customer Email", "Billing Email", "Shipping Email"; pick one)',
    );
    expect(h).not.toMatch(/Tax Total|Subtotal|Shipping Cost|Refund Amount/);
  });

  it("Magento's order grid: ID for order_id, never a name; both grand totals listed", () => {
    const h = hint(MAGENTO_GRID);
    expect(h).toBe(
      'name the columns after the fields, or map them: --map order_id=ID --map total=? (several columns could be total: "Grand Total (Base)", "Grand Total (Purchased)"; pick one) --set currency=<ISO code, e.g. EUR> --map order_date="Purchase Date" --map email="Customer Email"',
    );
    expect(h).not.toMatch(/Bill-to Name|Customer Name|Subtotal|Total Refunded/);
  });

  it('a name, a customer id or a payment date is never proposed for order_id or order_date', () => {
    expect(hint(['Customer ID', 'Customer Name', 'total', 'currency', 'Paid at', 'email'])).toBe(
      'name the columns after the fields, or map them: --map order_id="<column>" --map order_date="<column>"',
    );
  });

  it('header names match ignoring case, spaces, dashes, underscores and punctuation: E-Mail is email', () => {
    const layout = resolveColumns(['Order-ID', 'TOTAL', 'Currency', 'Order Date', 'E-Mail', 'Phone #'], new Map(), ',');
    expect(layout.sources.map((s) => `${s.field} ← ${s.columns[0]}`)).toEqual([
      'order_id ← Order-ID',
      'total ← TOTAL',
      'currency ← Currency',
      'order_date ← Order Date',
      'email ← E-Mail',
      'phone ← Phone #',
    ]);
  });
});

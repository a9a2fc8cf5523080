import { Document, Page, StyleSheet, Text, View } from '@react-pdf/renderer';
import type { Address } from '../../../core/customers/address.js';
import { moneyText } from '../../../core/kernel/money-text.js';
import type { OrderDocument } from '../../../core/order-documents/service.js';

/**
 * An order's invoice or receipt as a PDF page: who sold, who bought, the lines, the totals and (for a receipt) what
 * was paid and refunded. Built from the order as it is now, so a corrected billing name shows on the next download.
 * Helvetica, the PDF standard font, covers Latin scripts; names in other scripts print as the font allows.
 */

const styles = StyleSheet.create({
  page: { padding: 48, fontSize: 10, fontFamily: 'Helvetica', color: '#111' },
  title: { fontSize: 22, fontFamily: 'Helvetica-Bold', marginBottom: 4 },
  muted: { color: '#555' },
  row: { flexDirection: 'row', justifyContent: 'space-between' },
  parties: { flexDirection: 'row', justifyContent: 'space-between', marginTop: 24, marginBottom: 24 },
  party: { width: '45%' },
  heading: { fontFamily: 'Helvetica-Bold', marginBottom: 4 },
  tableHead: { flexDirection: 'row', borderBottom: '1pt solid #999', paddingBottom: 4, fontFamily: 'Helvetica-Bold' },
  line: { flexDirection: 'row', paddingVertical: 4, borderBottom: '0.5pt solid #ddd' },
  description: { width: '60%' },
  amount: { width: '20%', textAlign: 'right' },
  totals: { marginTop: 12, marginLeft: '50%' },
  total: { fontFamily: 'Helvetica-Bold' },
});

function date(value: Date): string {
  return value.toISOString().slice(0, 10);
}

function addressLines(address: Address | null): string[] {
  if (!address) return [];
  const cityLine = [address.postal_code, address.city, address.state].filter(Boolean).join(' ');
  return [address.line1, address.line2, cityLine, address.country].filter((line): line is string => !!line);
}

function Totals({ rows }: { rows: Array<[string, string, boolean?]> }) {
  return (
    <View style={styles.totals}>
      {rows.map(([label, value, strong]) => (
        <View key={label} style={styles.row}>
          <Text style={strong ? styles.total : {}}>{label}</Text>
          <Text style={strong ? styles.total : {}}>{value}</Text>
        </View>
      ))}
    </View>
  );
}

export function OrderPdf({ document }: { document: OrderDocument }) {
  const { order, seller } = document;
  const money = (amount: number) => moneyText(amount, order.currency);
  const title = document.kind === 'invoice' ? 'Invoice' : 'Receipt';
  const totals: Array<[string, string, boolean?]> = [['Subtotal', money(order.subtotalAmount)]];
  if (order.discountAmount > 0) totals.push(['Discount', money(-order.discountAmount)]);
  totals.push(['Tax', money(order.taxAmount)], ['Total', money(order.totalAmount), true]);
  if (document.kind === 'receipt') {
    totals.push(['Amount paid', money(order.totalAmount)]);
    if (order.refundedAmount > 0) totals.push(['Refunded', money(-(order.refundedAmount + order.refundedTaxAmount))]);
  }
  return (
    <Document title={`${title} ${document.number}`} author={seller.name}>
      <Page size="A4" style={styles.page}>
        <Text style={styles.title}>{title}</Text>
        <Text>{`${title} number: ${document.number}`}</Text>
        {document.kind === 'invoice' ? <Text>{`Order: ${order.invoiceNumber}`}</Text> : null}
        <Text>{`Date of issue: ${date(document.issuedAt)}`}</Text>
        <Text>{`Order date: ${date(order.createdAt)}`}</Text>
        <View style={styles.parties}>
          <View style={styles.party}>
            <Text style={styles.heading}>{seller.name}</Text>
            {[seller.email, seller.website, seller.country].filter(Boolean).map((line) => (
              <Text key={line} style={styles.muted}>
                {line}
              </Text>
            ))}
          </View>
          <View style={styles.party}>
            <Text style={styles.heading}>Bill to</Text>
            {order.billingName ? <Text>{order.billingName}</Text> : null}
            {addressLines(order.billingAddress).map((line) => (
              <Text key={line}>{line}</Text>
            ))}
            {document.buyerEmail ? <Text style={styles.muted}>{document.buyerEmail}</Text> : null}
          </View>
        </View>
        <View style={styles.tableHead}>
          <Text style={styles.description}>Description</Text>
          <Text style={styles.amount}>Tax</Text>
          <Text style={styles.amount}>Amount</Text>
        </View>
        {document.items.map((item) => (
          <View key={item.id} style={styles.line}>
            <Text style={styles.description}>{item.label}</Text>
            <Text style={styles.amount}>{money(item.taxAmount)}</Text>
            <Text style={styles.amount}>{money(item.amount)}</Text>
          </View>
        ))}
        <Totals rows={totals} />
      </Page>
    </Document>
  );
}

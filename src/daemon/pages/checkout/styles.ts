/** The pages' one stylesheet, inlined under the CSP nonce: the page loads nothing from anywhere else. */
export const CHECKOUT_CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1c1d21;background:#f4f5f7}
main{max-width:960px;margin:0 auto;padding:32px 16px;display:grid;gap:24px;grid-template-columns:1fr}
@media (min-width:800px){main.checkout{grid-template-columns:1fr 1fr}}
section,form,.card{background:#fff;border:1px solid #e2e4e9;border-radius:12px;padding:24px}
h1{font-size:1.5rem;margin:0 0 8px}
h2{font-size:1rem;margin:24px 0 8px}
.org{color:#5b5f6b;margin:0 0 16px;font-weight:600}
.price{font-size:1.25rem;margin:8px 0 16px}
.description{white-space:pre-line;color:#3b3e47}
table.totals{width:100%;border-collapse:collapse;margin:16px 0}
.totals td{padding:6px 0}.totals td:last-child{text-align:right}
.totals tr.total td{border-top:1px solid #e2e4e9;font-weight:700;padding-top:10px}
.field{margin:0 0 14px}
label{display:block;font-weight:600;margin-bottom:4px}
label.inline{display:flex;gap:8px;align-items:flex-start;font-weight:400}
input,select,textarea{width:100%;font:inherit;padding:9px 11px;border:1px solid #c9ccd4;border-radius:8px;background:#fff}
input[type=checkbox],input[type=radio]{width:auto;margin-top:4px}
.invalid input,.invalid select,.invalid textarea{border-color:#c62828}
.req{color:#c62828;margin-left:2px}
.help,.note{color:#5b5f6b;font-size:.875rem;margin:4px 0 0}
.error{color:#c62828;font-size:.875rem;margin:4px 0 0}
.alert{border:1px solid #f1b5b5;background:#fdecec;color:#8e1c1c;border-radius:8px;padding:10px 12px;margin:0 0 16px}
.notice{border:1px solid #b9d3f4;background:#eef5fe;color:#1b4a84;border-radius:8px;padding:10px 12px;margin:0 0 16px}
.row{display:flex;gap:8px}.row>*{flex:1}
.inline-form{display:flex;gap:8px}.inline-form input{flex:1}
button{font:inherit;border-radius:8px;padding:9px 14px;border:1px solid #c9ccd4;background:#fff;cursor:pointer}
button.primary{width:100%;background:#1c1d21;color:#fff;border-color:#1c1d21;padding:12px;font-weight:600;margin-top:8px}
.link{border:0;background:none;padding:0;color:#1b4a84;text-decoration:underline}
.cards{font-size:.875rem;color:#5b5f6b;margin:6px 0 0;padding-left:18px}
code{font-family:ui-monospace,Menlo,Consolas,monospace}
fieldset{border:0;margin:0;padding:0}
legend{font-weight:600;margin-bottom:4px;padding:0}
.narrow{max-width:560px}
`;

/**
 * The one script: it keeps a second click on Pay from submitting twice while the first is in flight. Everything
 * works without it.
 */
export const CHECKOUT_SCRIPT = `
document.addEventListener('submit', function (event) {
  // The hydrated page refuses some submits itself (a card that is not a test card); those never went out.
  if (event.defaultPrevented) return;
  var form = event.target;
  if (form.getAttribute('data-busy')) { event.preventDefault(); return; }
  form.setAttribute('data-busy', '1');
});
`;

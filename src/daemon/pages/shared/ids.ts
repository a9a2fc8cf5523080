/** Where the browser bundle finds the page's props and the element it hydrates; shared by server and browser. */
export const APP_ID = 'app';
export const PROPS_ID = 'page-props';

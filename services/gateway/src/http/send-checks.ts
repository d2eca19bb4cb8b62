import { ContentBatchItem, Email, SendBatchItem } from '@postbus/contracts';
import { compileBody, toFieldErrors } from '@postbus/http';
import type { SendsDeps } from '../domain/sends';

const checkTemplateItem = compileBody(SendBatchItem);
const checkContentItem = compileBody(ContentBatchItem);
const checkAddress = compileBody(Email);

/**
 * The schema checks the accept path makes itself: a batch's items one by one (a bad one rejects
 * only itself, so the batch's schema leaves them open), and an address's form.
 */
export const sendSchemaChecks: Pick<SendsDeps, 'checkTemplateItem' | 'checkContentItem' | 'isAddress'> = {
  checkTemplateItem: (item) => (checkTemplateItem(item) ? [] : toFieldErrors(checkTemplateItem.errors)),
  checkContentItem: (item) => (checkContentItem(item) ? [] : toFieldErrors(checkContentItem.errors)),
  isAddress: (address) => checkAddress(address),
};

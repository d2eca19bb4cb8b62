export { SecretBox, type Sealed } from './secret-box';

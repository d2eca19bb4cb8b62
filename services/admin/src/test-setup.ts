// jsdom leaves out what Node has and the browsers the panel targets have: TextEncoder (react-router uses it).
import { TextDecoder, TextEncoder } from 'node:util';
import '@testing-library/jest-dom';

Object.assign(globalThis, { TextEncoder, TextDecoder });

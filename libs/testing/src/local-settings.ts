/**
 * Where `npm start` lets webhooks go on this machine (WEBHOOK_ALLOWED_HOSTS unless the environment
 * sets it): receivers on ports 9000-9099 only, so that no tenant's webhook reaches the services'
 * internal APIs (8081-8085), the gateway's internal listener (8086) or the SMTP sink (8025).
 */
export const LOCAL_WEBHOOK_ALLOWED_HOSTS = '127.0.0.1:9000-9099,localhost:9000-9099,[::1]:9000-9099';

# syntax=docker/dockerfile:1
#
# One image for every Postbus service. The service a container runs is chosen by
#   - the SERVICE build arg (the image's default command):
#       docker build --build-arg SERVICE=users -t postbus-users .
#   - or, at run time, the POSTBUS_SERVICE variable:  docker run -e POSTBUS_SERVICE=users postbus
#   - or an explicit command:                          docker run postbus node services/users/dist/main.js
# A new service under services/<name> (with src/main.ts compiled to dist/main.js by `tsc -b`)
# needs no change here.
#
# Node is PID 1 when the default command runs (the shell `exec`s it). The services handle SIGTERM
# and SIGINT themselves (graceful stop within 20 s), so this is safe; to also reap zombies and
# forward every signal, run with an init: `docker run --init`, `init: true` in Compose.
# Give the container more than 20 s to stop (`docker stop -t 30`, `stop_grace_period: 30s`,
# Kubernetes terminationGracePeriodSeconds: 30).

ARG NODE_IMAGE=node:24-bookworm-slim

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS base
WORKDIR /app
# SCARF_ANALYTICS: swagger-ui-dist pulls in @scarf/scarf, whose install script reports downloads.
ENV npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false \
    SCARF_ANALYTICS=false

# ---------------------------------------------------------------------------------------------
# Only the lockfile and the package.json files of the root and every workspace, at their paths,
# so that `npm ci` below is re-run only when dependencies change, not on every source edit.
FROM base AS manifests
COPY . /src
RUN set -eu; \
    mkdir -p /manifests; \
    cd /src; \
    cp package.json package-lock.json /manifests/; \
    find . -mindepth 2 -maxdepth 3 -name package.json -not -path './node_modules/*' \
      -exec cp --parents {} /manifests/ \;

# ---------------------------------------------------------------------------------------------
FROM base AS build
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    npm ci
COPY . .
RUN npm run build
RUN npm prune --omit=dev
# Gather exactly what runs: the production node_modules (workspace packages are symlinks into
# libs/ and services/), and for every workspace package its package.json, dist/, bin/ and any
# nested node_modules/ (npm nests a dependency there when versions conflict). Declarations and
# source maps are dropped (useless without the TypeScript sources), links to workspaces that are
# not shipped (e2e) would dangle and are removed, and every service must have its entry point
# (services/admin is the panel's static bundle, which the gateway serves from services/admin/dist).
RUN set -eu; \
    mkdir -p /out; \
    cp package.json /out/; \
    cp -a node_modules /out/; \
    for pkg in libs/* services/*; do \
      if [ -f "$pkg/package.json" ]; then \
        mkdir -p "/out/$pkg"; \
        cp "$pkg/package.json" "/out/$pkg/"; \
        for part in dist bin node_modules; do \
          if [ -e "$pkg/$part" ]; then cp -a "$pkg/$part" "/out/$pkg/"; fi; \
        done; \
      fi; \
    done; \
    find /out/libs /out/services -path '*/dist/*' \( -name '*.d.ts' -o -name '*.map' \) -delete; \
    find /out/node_modules -xtype l -delete; \
    for svc in /out/services/*; do test -f "$svc/dist/main.js" || test -f "$svc/dist/index.html"; done; \
    test -f /out/services/admin/dist/index.html

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
LABEL org.opencontainers.image.title="postbus" \
      org.opencontainers.image.description="Postbus, a self-hostable transactional email service" \
      org.opencontainers.image.licenses="Apache-2.0"
# kafkajs's request queue arms an idle timer at "-1 - now" ms, which Node (from 23) reports as a
# TimeoutNegativeWarning on every connection; the timer fires after 1 ms either way.
ENV NODE_ENV=production \
    NODE_OPTIONS=--disable-warning=TimeoutNegativeWarning
WORKDIR /app
# Owned by root and read-only for the service user: the process cannot modify its own code.
COPY --from=build /out/ ./

ARG SERVICE=gateway
ENV POSTBUS_SERVICE=${SERVICE}
RUN test -f "services/${SERVICE}/dist/main.js" \
    || { echo "SERVICE=${SERVICE}: services/${SERVICE}/dist/main.js not found" >&2; exit 1; }

# The status service's snapshot file: a volume mounted here starts owned by the service user.
RUN mkdir -p /var/lib/postbus-status && chown 1000:1000 /var/lib/postbus-status
# The image's "node" user, by number so that Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
# gateway 8080, users 8081 (each service's PORT variable).
EXPOSE 8080 8081
STOPSIGNAL SIGTERM
CMD ["/bin/sh", "-c", "exec node \"services/${POSTBUS_SERVICE}/dist/main.js\""]

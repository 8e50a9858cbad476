# pbp-dice in a container (docs/deploying.md, "Container"): the wheel, built and installed with
# the same commands as tests/packaging/ (uv build, uv venv, uv pip install WHEEL[postgres]),
# run as a user without privileges, its data in a volume, /healthz as the health check.
#
# BASE: any image with python3 (3.11 or later, with venv), CA certificates and useradd.
# Without Docker Hub, make one from Debian's packages: deploy/container/base-image.sh, then
# --build-arg BASE=pbp-dice-base:bookworm.
ARG BASE=python:3.11-slim

FROM ${BASE} AS build
# Only for the downloads in this stage, none of which reaches the image: EXTRA_CA_CERTS, the
# PEM text of a TLS-intercepting proxy's CA; PIP_INDEX_URL and UV_DEFAULT_INDEX, a mirror.
ARG EXTRA_CA_CERTS=""
ARG PIP_INDEX_URL
ARG UV_DEFAULT_INDEX
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt
RUN if [ -n "$EXTRA_CA_CERTS" ]; then printf '%s\n' "$EXTRA_CA_CERTS" >>"$SSL_CERT_FILE"; fi \
 && python3 -m venv /opt/uv \
 && /opt/uv/bin/pip install --no-cache-dir "uv>=0.5,<1"
ENV PATH=/opt/uv/bin:$PATH
COPY . /src
RUN uv build --out-dir /dist /src
RUN uv venv --python python3 /opt/pbp-dice/venv \
 && uv pip install --no-cache --python /opt/pbp-dice/venv/bin/python "$(ls /dist/*.whl)[postgres]"

# The same base, so the venv's python3 is where it was built.
FROM ${BASE}
RUN useradd --system --create-home --home-dir /var/lib/pbp-dice --shell /usr/sbin/nologin pbp-dice
COPY --from=build /opt/pbp-dice/venv /opt/pbp-dice/venv
# SQLite in the volume unless DATABASE_URL says otherwise (compose.yaml: PostgreSQL). The
# metrics and health endpoint listens on every interface of the container, so an orchestrator's
# probe (or a published port) reaches it; publish it only to a trusted network.
ENV PATH=/opt/pbp-dice/venv/bin:$PATH \
    DATABASE_URL=sqlite+aiosqlite:////var/lib/pbp-dice/data/pbp-dice.sqlite3 \
    METRICS_HOST=0.0.0.0 \
    METRICS_PORT=9108
USER pbp-dice
WORKDIR /var/lib/pbp-dice
VOLUME ["/var/lib/pbp-dice"]
EXPOSE 9108
# 200 once migrated and logged in to Discord; 503 before and while shutting down.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
  CMD ["python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:9108/healthz', timeout=4)"]
# SIGTERM drains commands in flight (SHUTDOWN_GRACE_SECONDS) and exits 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["pbp-dice"]
CMD ["run"]

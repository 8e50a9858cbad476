# pbp-dice in a container (docs/deploying.md, "Container"): the wheel, built and installed with
# the same commands as tests/packaging/ (uv build, uv venv, uv pip install WHEEL[postgres]),
# run as a user without privileges, its data in a volume, /healthz as the health check.
FROM python:3.11-slim AS build
RUN pip install --no-cache-dir "uv>=0.5,<1"
COPY . /src
RUN uv build --out-dir /dist /src

FROM python:3.11-slim
RUN pip install --no-cache-dir "uv>=0.5,<1" \
 && useradd --system --create-home --home-dir /var/lib/pbp-dice --shell /usr/sbin/nologin pbp-dice
COPY --from=build /dist/ /dist/
RUN uv venv --python python3 /opt/pbp-dice/venv \
 && uv pip install --no-cache --python /opt/pbp-dice/venv/bin/python "$(ls /dist/*.whl)[postgres]" \
 && rm -rf /dist
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

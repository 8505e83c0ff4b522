# Sourced by the GPU session scripts, from the repository root: tailsplit read from src/,
# Python unbuffered, and the wheels in WHEEL_DIR (default .whl) installed where that folder is
# there (packages the GPU machine lacks). Then, for the scripts: card (h200, h100, a100, gpu;
# smoke with SMOKE=1, which needs no GPU) and device (cuda, or cpu with SMOKE=1).
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
wheels=${WHEEL_DIR:-.whl}
if [ -d "$wheels" ]; then
  # installed once per machine: a script started while another runs must not reinstall under it
  if [ "$(cat /tmp/tailsplit-site/.wheels 2>/dev/null)" != "$(ls "$wheels")" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/tailsplit-site \
      "$wheels"/*.whl && ls "$wheels" > /tmp/tailsplit-site/.wheels || exit 1
  fi
  export PYTHONPATH="/tmp/tailsplit-site:$PYTHONPATH"
fi
if [ "${SMOKE:-0}" = 1 ]; then
  card=smoke device=cpu
else
  python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else "no CUDA GPU: run with SMOKE=1 to check the script")' || exit 1
  card=$(python3 -c 'import torch; n = torch.cuda.get_device_name(); print(next((k for k in ("h200", "h100", "a100") if k in n.lower()), "gpu"))')
  device=cuda
fi

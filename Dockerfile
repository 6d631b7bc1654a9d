# The lab's CLI in a container, for sweeps on a cluster (docs/sweeps.md#docker):
#   docker build -t agentwise-lab .
#   docker run --rm -v "$PWD/sweeps:/lab/sweeps" agentwise-lab sweep --config 'v=1&task=sync' \
#     --grid optim.lr=0.001,0.002 --steps 200 --out sweeps/lr
FROM node:20
WORKDIR /lab
COPY package.json package-lock.json ./
# tsx (a dev dependency) runs the TypeScript CLI, so the dev dependencies are installed too.
RUN npm install --no-audit --no-fund
COPY . .
ENTRYPOINT ["npm", "run", "-s", "lab", "--"]
CMD ["help"]
